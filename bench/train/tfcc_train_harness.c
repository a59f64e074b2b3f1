/* tfcc_train_harness.c - training benchmark harness for a tfcc-compiled model with a
 * train step (bench/README.md, "Training"), through the generic C API of docs/c-api.md:
 * <p>_info (entries "train_step" and "loss", the variable table), <p>_create_with_threads
 * (or <p>_create), <p>_invoke, <p>_get_variable, <p>_reset_state, <p>_destroy.
 *
 *   tfcc_train_harness MODEL.so PREFIX THREADS BATCH DATA NBATCHES
 *
 * DATA holds NBATCHES batches of the train step's inputs, each batch its inputs in entry
 * order (raw, row-major; for mnist_cnn_train: BATCH x 28 x 28 x 1 float32 images, then
 * BATCH int32 labels). Built by bench/bench.py with -DTFCC_MODEL_HEADER='"MODEL.h"' (the
 * header tfcc wrote), so the structs it reads are those the .so was compiled with.
 *
 * Prints "ready <note>" (or "error <why>"), then serves one command per line, one reply line
 * each (the shape of bench/harness/common.h's protocol):
 *   weights OUT     every variable of the state (table order) as raw bytes into OUT, and
 *                   OUT.index: one line per variable "name dtype trainable bytes d0xd1x..."
 *                   -> "ok <bytes>"
 *   check S OUT     from the initial state (reset_state): the "loss" entry on batch 0, S
 *                   train steps on batch 0, the "loss" entry on batch 0 again; writes the
 *                   S + 2 losses (float32) to OUT, then resets the state -> "ok <S + 2>"
 *   time K          K train steps back to back, on the batches in turn (the cursor carries
 *                   over between calls) -> "ok <seconds> <loss of the last step>"
 *   quit            exit 0
 * Failures answer "error <why>".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* common.h's serve loop is not used */
#include "../harness/common.h"
#pragma GCC diagnostic pop
#ifdef TFCC_MODEL_HEADER
#include TFCC_MODEL_HEADER
#else
#include "tfcc/tfcc_types.h"
#endif
#include "../harness/tfcc_args.h"

typedef const tfcc_model_info* (*info_fn)(void);
typedef tfcc_status_t (*create_fn)(int64_t, tfcc_context**);
typedef tfcc_status_t (*create_threads_fn)(int64_t, int32_t, tfcc_context**);
typedef tfcc_status_t (*invoke_fn)(int32_t, tfcc_context*, int64_t, const void* const*,
                                   void* const*);
typedef tfcc_status_t (*get_var_fn)(tfcc_context*, const char*, void*, uint64_t);
typedef tfcc_status_t (*reset_fn)(tfcc_context*);
typedef void (*destroy_fn)(tfcc_context*);

enum { MAX_INPUTS = 8 };

typedef struct {
  tfcc_context* ctx;
  const tfcc_model_info* info;
  invoke_fn invoke;
  get_var_fn get_var;
  reset_fn reset;
  int train, loss; /* entry indices */
  int64_t batch;
  int num_in;                  /* inputs of the train step (and of "loss") */
  size_t in_bytes[MAX_INPUTS]; /* per batch */
  unsigned char* data;         /* nbatches x (sum of in_bytes) */
  size_t batch_bytes;
  long nbatches, cursor;
} harness_t;

static int find_entry(const tfcc_model_info* mi, const char* name) {
  for (int i = 0; i < mi->num_entries; ++i)
    if (!strcmp(mi->entries[i].name, name)) return i;
  return -1;
}

/* Runs entry `entry` (one scalar float32 output: the loss) on batch `b`. */
static int run_entry(harness_t* h, int entry, long b, float* loss, char* err, size_t len) {
  const void* in[MAX_INPUTS];
  void* out[1] = {loss};
  const unsigned char* p = h->data + (size_t)b * h->batch_bytes;
  for (int i = 0; i < h->num_in; ++i) {
    in[i] = p;
    p += h->in_bytes[i];
  }
  tfcc_status_t s = h->invoke(entry, h->ctx, h->batch, in, out);
  if (s != TFCC_OK) {
    snprintf(err, len, "%s: status %d: %s", h->info->entries[entry].name, (int)s,
             h->ctx->message);
    return 1;
  }
  return 0;
}

static int cmd_weights(harness_t* h, const char* path, char* err, size_t len) {
  char index_path[2100];
  snprintf(index_path, sizeof index_path, "%s.index", path);
  FILE* f = fopen(path, "wb");
  FILE* g = fopen(index_path, "w");
  size_t total = 0;
  int rc = 0;
  if (!f || !g) {
    snprintf(err, len, "cannot write %.900s", f ? index_path : path);
    rc = 1;
  }
  for (int i = 0; !rc && i < h->info->num_variables; ++i) {
    const tfcc_variable_info* v = &h->info->variables[i];
    void* buf = bench_alloc(v->bytes);
    tfcc_status_t s = buf ? h->get_var(h->ctx, v->name, buf, v->bytes) : TFCC_RESOURCE_EXHAUSTED;
    if (s != TFCC_OK) {
      snprintf(err, len, "get_variable %s: status %d: %s", v->name, (int)s, h->ctx->message);
      rc = 1;
    } else if (fwrite(buf, 1, v->bytes, f) != v->bytes) {
      snprintf(err, len, "cannot write %s", path);
      rc = 1;
    } else {
      fprintf(g, "%s %d %d %llu ", v->name, (int)v->dtype, (int)v->trainable,
              (unsigned long long)v->bytes);
      for (int32_t d = 0; d < v->rank; ++d)
        fprintf(g, "%s%lld", d ? "x" : "", (long long)v->dims[d]);
      fprintf(g, "%s\n", v->rank ? "" : "scalar");
      total += v->bytes;
    }
    free(buf);
  }
  if (f && fclose(f)) rc = rc ? rc : (snprintf(err, len, "cannot write %s", path), 1);
  if (g && fclose(g)) rc = rc ? rc : (snprintf(err, len, "cannot write %.900s", index_path), 1);
  if (!rc) bench_reply("ok %zu", total);
  return rc;
}

static int cmd_check(harness_t* h, long steps, const char* path, char* err, size_t len) {
  float* losses = calloc((size_t)steps + 2, sizeof(float));
  int rc = !losses;
  if (rc) snprintf(err, len, "out of memory");
  tfcc_status_t s = rc ? TFCC_OK : h->reset(h->ctx);
  if (s != TFCC_OK) {
    snprintf(err, len, "reset_state: status %d: %s", (int)s, h->ctx->message);
    rc = 1;
  }
  if (!rc) rc = run_entry(h, h->loss, 0, &losses[0], err, len);
  for (long i = 0; !rc && i < steps; ++i) rc = run_entry(h, h->train, 0, &losses[1 + i], err, len);
  if (!rc) rc = run_entry(h, h->loss, 0, &losses[steps + 1], err, len);
  if (!rc) {
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(losses, sizeof(float), (size_t)steps + 2, f) != (size_t)steps + 2) {
      snprintf(err, len, "cannot write %s", path);
      rc = 1;
    }
    if (f && fclose(f) && !rc) {
      snprintf(err, len, "cannot write %s", path);
      rc = 1;
    }
  }
  if (!rc && (s = h->reset(h->ctx)) != TFCC_OK) {
    snprintf(err, len, "reset_state: status %d: %s", (int)s, h->ctx->message);
    rc = 1;
  }
  free(losses);
  if (!rc) bench_reply("ok %ld", steps + 2);
  return rc;
}

static int cmd_time(harness_t* h, long k, char* err, size_t len) {
  float loss = NAN;
  double t0 = bench_now();
  for (long i = 0; i < k; ++i) {
    if (run_entry(h, h->train, h->cursor, &loss, err, len)) return 1;
    h->cursor = (h->cursor + 1) % h->nbatches;
  }
  double t1 = bench_now();
  bench_reply("ok %.9f %.6g", t1 - t0, (double)loss);
  return 0;
}

static int serve(harness_t* h) {
  char line[4096], err[1024];
  while (fgets(line, sizeof line, stdin)) {
    char cmd[32] = {0}, a[2048] = {0}, b[2048] = {0};
    int n = sscanf(line, "%31s %2047s %2047s", cmd, a, b);
    err[0] = 0;
    if (n < 1) continue;
    int rc = 0;
    if (!strcmp(cmd, "quit")) {
      return 0;
    } else if (!strcmp(cmd, "weights") && n == 2) {
      rc = cmd_weights(h, a, err, sizeof err);
    } else if (!strcmp(cmd, "check") && n == 3 && atol(a) >= 1) {
      rc = cmd_check(h, atol(a), b, err, sizeof err);
    } else if (!strcmp(cmd, "time") && n == 2 && atol(a) >= 1) {
      rc = cmd_time(h, atol(a), err, sizeof err);
    } else {
      bench_reply("error unknown command");
    }
    if (rc) bench_reply("error %s", err);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: tfcc_train_harness MODEL.so PREFIX THREADS BATCH DATA NBATCHES\n");
    return 2;
  }
  const char* path = argv[1];
  const char* prefix = argv[2];
  int threads = atoi(argv[3]);
  harness_t h = {0};
  h.batch = atoll(argv[4]);
  h.nbatches = atol(argv[6]);
  if (h.batch < 1 || h.nbatches < 1) { bench_reply("error bad BATCH or NBATCHES"); return 1; }
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) { bench_reply("error dlopen: %s", dlerror()); return 1; }
  char sym[512];
#define LOOKUP(var, type, suffix)                  \
  snprintf(sym, sizeof sym, "%s_" suffix, prefix); \
  type var = (type)dlsym(lib, sym);
  LOOKUP(info, info_fn, "info")
  LOOKUP(create, create_fn, "create")
  LOOKUP(create_threads, create_threads_fn, "create_with_threads")
  LOOKUP(invoke, invoke_fn, "invoke")
  LOOKUP(get_var, get_var_fn, "get_variable")
  LOOKUP(reset, reset_fn, "reset_state")
  LOOKUP(destroy, destroy_fn, "destroy")
  if (!info || !create || !invoke || !get_var || !reset || !destroy) {
    bench_reply("error %s lacks %s_info/_create/_invoke/_get_variable/_reset_state/_destroy "
                "(no train step?)", path, prefix);
    return 1;
  }
  h.info = info();
  h.invoke = invoke;
  h.get_var = get_var;
  h.reset = reset;
  h.train = find_entry(h.info, "train_step");
  h.loss = find_entry(h.info, "loss");
  if (h.train < 0 || h.loss < 0) { bench_reply("error no train_step or loss entry"); return 1; }
  const tfcc_entry_info* e = &h.info->entries[h.train];
  const tfcc_entry_info* l = &h.info->entries[h.loss];
  if (e->num_inputs > MAX_INPUTS || e->num_outputs != 1 || l->num_inputs != e->num_inputs ||
      l->num_outputs != 1) {
    bench_reply("error train_step/loss: expected the same inputs and one (loss) output");
    return 1;
  }
  h.num_in = e->num_inputs;
  for (int i = 0; i < h.num_in; ++i) {
    h.in_bytes[i] = arg_bytes(&e->inputs[i], h.batch);
    h.batch_bytes += h.in_bytes[i];
  }
  h.data = bench_alloc(h.batch_bytes * (size_t)h.nbatches);
  FILE* f = fopen(argv[5], "rb");
  int short_read = !f || !h.data ||
                   fread(h.data, 1, h.batch_bytes * (size_t)h.nbatches, f) !=
                       h.batch_bytes * (size_t)h.nbatches ||
                   fgetc(f) != EOF;
  if (f) fclose(f);
  if (short_read) {
    bench_reply("error %s: expected %ld batches of %zu bytes", argv[5], h.nbatches,
                h.batch_bytes);
    return 1;
  }

  char note[128];
  tfcc_status_t s;
  if (create_threads) {
    s = create_threads(h.batch, threads, &h.ctx);
    snprintf(note, sizeof note, "threads=%d", threads);
  } else {
    s = create(h.batch, &h.ctx);
    snprintf(note, sizeof note, "%s",
             threads > 1 ? "tfcc threads unsupported (no _create_with_threads; 1 thread)"
                         : "threads=1");
  }
  if (s != TFCC_OK) { bench_reply("error create: status %d", (int)s); return 1; }
  bench_reply("ready %s", note);
  int rc = serve(&h);
  destroy(h.ctx);
  return rc;
}
