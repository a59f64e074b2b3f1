/* tfcc_bench.c - benchmark harness for a tfcc-compiled model (.so), through the generic C
 * API of docs/c-api.md: <p>_info, <p>_create (or <p>_create_with_threads when the .so
 * exports it), <p>_invoke on entry 0, <p>_destroy.
 *
 *   tfcc_bench MODEL.so PREFIX THREADS BATCH
 *
 * Built once per model with -DTFCC_MODEL_HEADER='"MODEL.h"' (the header tfcc wrote), so the
 * structs it reads (tfcc_model_info, tfcc_context) are those the .so was compiled with, even
 * while the runtime ABI changes; without it, it uses runtime/include/tfcc/tfcc_types.h.
 *
 * Speaks the protocol of common.h. The "ready" line says whether the thread count was
 * applied ("threads=N") or not ("tfcc threads unsupported": the .so has no
 * <p>_create_with_threads and runs on one thread).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

#include "common.h"
#ifdef TFCC_MODEL_HEADER
#include TFCC_MODEL_HEADER
#else
#include "tfcc/tfcc_types.h"
#endif
#include "tfcc_args.h"

typedef const tfcc_model_info* (*info_fn)(void);
typedef tfcc_status_t (*create_fn)(int64_t, tfcc_context**);
typedef tfcc_status_t (*create_threads_fn)(int64_t, int32_t, tfcc_context**);
typedef tfcc_status_t (*invoke_fn)(int32_t, tfcc_context*, int64_t, const void* const*,
                                   void* const*);
typedef void (*destroy_fn)(tfcc_context*);

typedef struct {
  tfcc_context* ctx;
  invoke_fn invoke;
  int64_t batch;
  int num_in, num_out;
  void** in;
  void** out;
  size_t* in_bytes;
  size_t* out_bytes;
} model_t;

static int run(void* self, char* err, size_t len) {
  model_t* m = self;
  tfcc_status_t s = m->invoke(0, m->ctx, m->batch, (const void* const*)m->in, m->out);
  if (s != TFCC_OK) { snprintf(err, len, "invoke: status %d: %s", (int)s, m->ctx->message); return 1; }
  return 0;
}

static int check(void* self, const char* in, const char* out, size_t* written, char* err,
                 size_t len) {
  model_t* m = self;
  if (bench_read_inputs(in, m->num_in, m->in, m->in_bytes)) {
    snprintf(err, len, "cannot read inputs of the expected size from %s", in);
    return 1;
  }
  if (run(self, err, len)) return 1;
  if (bench_write_outputs(out, m->num_out, (const void* const*)m->out, m->out_bytes)) {
    snprintf(err, len, "cannot write %s", out);
    return 1;
  }
  *written = 0;
  for (int i = 0; i < m->num_out; ++i) *written += m->out_bytes[i];
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: tfcc_bench MODEL.so PREFIX THREADS BATCH\n");
    return 2;
  }
  const char* path = argv[1];
  const char* prefix = argv[2];
  int threads = atoi(argv[3]);
  int64_t batch = atoll(argv[4]);
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) { bench_reply("error dlopen: %s", dlerror()); return 1; }
  char sym[512];
#define LOOKUP(var, type, suffix)                     \
  snprintf(sym, sizeof sym, "%s_" suffix, prefix);    \
  type var = (type)dlsym(lib, sym);
  LOOKUP(info, info_fn, "info")
  LOOKUP(create, create_fn, "create")
  LOOKUP(create_threads, create_threads_fn, "create_with_threads")
  LOOKUP(invoke, invoke_fn, "invoke")
  LOOKUP(destroy, destroy_fn, "destroy")
  if (!info || !create || !invoke || !destroy) {
    bench_reply("error %s lacks %s_info/_create/_invoke/_destroy", path, prefix);
    return 1;
  }
  const tfcc_model_info* mi = info();
  if (!mi || mi->num_entries < 1) { bench_reply("error no entries"); return 1; }
  const tfcc_entry_info* e = &mi->entries[0];

  model_t m = {0};
  m.invoke = invoke;
  m.batch = batch;
  m.num_in = e->num_inputs;
  m.num_out = e->num_outputs;
  m.in = calloc((size_t)m.num_in + 1, sizeof(void*));
  m.out = calloc((size_t)m.num_out + 1, sizeof(void*));
  m.in_bytes = calloc((size_t)m.num_in + 1, sizeof(size_t));
  m.out_bytes = calloc((size_t)m.num_out + 1, sizeof(size_t));
  for (int i = 0; i < m.num_in; ++i) {
    m.in_bytes[i] = arg_bytes(&e->inputs[i], batch);
    m.in[i] = bench_alloc(m.in_bytes[i]);
  }
  for (int i = 0; i < m.num_out; ++i) {
    m.out_bytes[i] = arg_bytes(&e->outputs[i], batch);
    m.out[i] = bench_alloc(m.out_bytes[i]);
  }

  const char* note;
  char note_buf[128];
  tfcc_status_t s;
  if (create_threads) {
    s = create_threads(batch, threads, &m.ctx);
    snprintf(note_buf, sizeof note_buf, "threads=%d", threads);
    note = note_buf;
  } else {
    s = create(batch, &m.ctx);
    note = threads > 1 ? "tfcc threads unsupported (no _create_with_threads; 1 thread)" : "threads=1";
  }
  if (s != TFCC_OK) { bench_reply("error create: status %d", (int)s); return 1; }
  bench_reply("ready %s", note);
  int rc = bench_serve(&m, run, check);
  destroy(m.ctx);
  return rc;
}
