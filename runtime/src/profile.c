/* profile.c - per-op spans of a context's calls, written as a Chrome trace.
 *
 * The compiler wraps each kernel call and fused loop nest of an entry in
 *   if (tfcc_rt_profiling_active) tfcc_rt_profile_begin(name, kind);
 *   ... the op ...
 *   if (tfcc_rt_profiling_active) tfcc_rt_profile_end();
 * (passes/ProfileSpans.cpp), so a model that is not being profiled pays one
 * load and branch per op. tfcc_rt_invoke_dims points this thread's
 * `recording` at the context's record for the length of a call; the spans of
 * other threads' contexts go to their own records. The record grows with
 * realloc (profiling is the one hot path that allocates; at most
 * TFCC_RT_PROFILE_MAX_SPANS spans, the rest counted as dropped).
 *
 * Output: the Trace Event Format's JSON object form ({"traceEvents": [...]}),
 * one complete event ("ph": "X") per span, timestamps in microseconds from
 * the start of profiling; chrome://tracing and Perfetto load it
 * (docs/profiling.md).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TFCC_RT_PROFILE_MAX_SPANS ((size_t)1 << 22)

typedef struct tfcc_rt_span {
  const char* name;  /* node label, or the entry's name */
  const char* kind;  /* kernel or loop kind; NULL: an entry call */
  const char* entry; /* the entry the op ran in */
  int64_t begin_ns;  /* from the record's origin */
  int64_t end_ns;
  int64_t batch; /* an entry call's batch */
} tfcc_rt_span;

typedef struct tfcc_rt_profile_record {
  tfcc_rt_span* spans;
  size_t count;
  size_t capacity;
  uint64_t dropped;
  int64_t origin_ns;
  /* The call under way: its span's index (or SIZE_MAX when dropped). */
  size_t call_span;
  const char* call_entry;
  /* The op under way (begin seen, end not yet). */
  const char* op_name;
  const char* op_kind;
  int64_t op_begin_ns;
  int op_open;
  /* TFCC_PROFILE's file, written at destruction; NULL for the API's. */
  char* env_path;
} tfcc_rt_profile_record;

int32_t tfcc_rt_profiling_active = 0;

static __thread tfcc_rt_profile_record* tfcc_rt_recording = NULL;

static int64_t tfcc_rt_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

/* A new span at the end of `r`, or NULL (counted as dropped) when the record
 * is full or cannot grow. */
static tfcc_rt_span* tfcc_rt_add_span(tfcc_rt_profile_record* r) {
  if (r->count == r->capacity) {
    size_t capacity = r->capacity ? r->capacity * 2 : 1024;
    tfcc_rt_span* grown;
    if (capacity > TFCC_RT_PROFILE_MAX_SPANS ||
        !(grown = (tfcc_rt_span*)realloc(r->spans,
                                         capacity * sizeof(tfcc_rt_span)))) {
      ++r->dropped;
      return NULL;
    }
    r->spans = grown;
    r->capacity = capacity;
  }
  return &r->spans[r->count++];
}

void tfcc_rt_profile_begin(const char* name, const char* kind) {
  tfcc_rt_profile_record* r = tfcc_rt_recording;
  if (!r) return;
  r->op_name = name;
  r->op_kind = kind;
  r->op_open = 1;
  r->op_begin_ns = tfcc_rt_now_ns() - r->origin_ns;
}

void tfcc_rt_profile_end(void) {
  tfcc_rt_profile_record* r = tfcc_rt_recording;
  int64_t end;
  tfcc_rt_span* s;
  /* No begin on this record: profiling started on another thread's context
   * between this op's two checks. */
  if (!r || !r->op_open) return;
  end = tfcc_rt_now_ns() - r->origin_ns;
  r->op_open = 0;
  s = tfcc_rt_add_span(r);
  if (!s) return;
  s->name = r->op_name;
  s->kind = r->op_kind;
  s->entry = r->call_entry;
  s->begin_ns = r->op_begin_ns;
  s->end_ns = end;
  s->batch = -1;
}

void tfcc_rt_profile_call_begin(tfcc_context* ctx, const char* entry) {
  tfcc_rt_profile_record* r = (tfcc_rt_profile_record*)ctx->profile;
  tfcc_rt_span* s;
  tfcc_rt_recording = r;
  if (!r) return;
  r->op_open = 0;
  r->call_entry = entry;
  /* The call's span first, so the spans stay in order of their starts. */
  s = tfcc_rt_add_span(r);
  r->call_span = s ? (size_t)(s - r->spans) : SIZE_MAX;
  if (s) {
    s->name = entry;
    s->kind = NULL;
    s->entry = entry;
    s->begin_ns = tfcc_rt_now_ns() - r->origin_ns;
    s->end_ns = s->begin_ns;
    s->batch = 0;
  }
}

void tfcc_rt_profile_call_end(tfcc_context* ctx, int64_t batch) {
  tfcc_rt_profile_record* r = (tfcc_rt_profile_record*)ctx->profile;
  tfcc_rt_recording = NULL;
  if (!r || r->call_span == SIZE_MAX) return;
  r->spans[r->call_span].end_ns = tfcc_rt_now_ns() - r->origin_ns;
  r->spans[r->call_span].batch = batch;
}

static void tfcc_rt_profile_message(tfcc_context* ctx, const char* format,
                                    const char* a, const char* b) {
#if defined(TFCC_NO_ERROR_STRINGS) || defined(TFCC_RT_NO_MESSAGES)
  (void)format;
  (void)a;
  (void)b;
  ctx->message[0] = '\0';
#else
  snprintf(ctx->message, sizeof(ctx->message), format, a, b);
#endif
}

static tfcc_status_t tfcc_rt_profile_check(const tfcc_model_info* m,
                                           tfcc_context* ctx) {
  if (!ctx) return TFCC_INVALID_ARGUMENT;
  if (!m || ctx->model != m) {
    tfcc_rt_profile_message(ctx, "%s%s: the context is not initialized for "
                            "this model", m && m->name ? m->name : "model",
                            "_profile");
    return TFCC_INVALID_ARGUMENT;
  }
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_profile_start(const tfcc_model_info* m,
                                    tfcc_context* ctx) {
  tfcc_rt_profile_record* r;
  tfcc_status_t status = tfcc_rt_profile_check(m, ctx);
  if (status != TFCC_OK) return status;
  r = (tfcc_rt_profile_record*)ctx->profile;
  if (r) {
    /* Again: start over. */
    r->count = 0;
    r->dropped = 0;
    r->origin_ns = tfcc_rt_now_ns();
    ctx->message[0] = '\0';
    return TFCC_OK;
  }
  r = (tfcc_rt_profile_record*)calloc(1, sizeof(*r));
  if (!r) {
    tfcc_rt_profile_message(ctx, "%s%s: out of memory", m->name, "_profile_start");
    return TFCC_RESOURCE_EXHAUSTED;
  }
  r->origin_ns = tfcc_rt_now_ns();
  r->call_span = SIZE_MAX;
  ctx->profile = r;
  __atomic_fetch_add(&tfcc_rt_profiling_active, 1, __ATOMIC_RELAXED);
  ctx->message[0] = '\0';
  return TFCC_OK;
}

/* `s` as the body of a JSON string. */
static void tfcc_rt_json_string(FILE* f, const char* s) {
  const unsigned char* c = (const unsigned char*)(s ? s : "");
  for (; *c; ++c) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
}

static int tfcc_rt_write_trace(const tfcc_rt_profile_record* r,
                               const tfcc_model_info* m, FILE* f) {
  size_t i;
  long pid = (long)getpid();
  /* The pid first: tfcc_rt_claimed_here reads it. */
  fprintf(f, "{\"otherData\": {\"pid\": %ld, \"producer\": \"tfcc\", "
             "\"model\": \"", pid);
  tfcc_rt_json_string(f, m->name);
  fprintf(f, "\", \"dropped_spans\": %" PRIu64 "},\n\"displayTimeUnit\": "
             "\"ms\",\n\"traceEvents\": [\n", r->dropped);
  fprintf(f, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %ld, "
             "\"tid\": 1, \"args\": {\"name\": \"",
          pid);
  tfcc_rt_json_string(f, m->name);
  fprintf(f, " (tfcc)\"}}");
  for (i = 0; i < r->count; ++i) {
    const tfcc_rt_span* s = &r->spans[i];
    fprintf(f, ",\n{\"ph\": \"X\", \"name\": \"");
    tfcc_rt_json_string(f, s->name);
    fprintf(f, "\", \"cat\": \"%s\", \"ts\": %.3f, \"dur\": %.3f, "
               "\"pid\": %ld, \"tid\": 1, \"args\": {",
            s->kind ? "op" : "entry", (double)s->begin_ns / 1e3,
            (double)(s->end_ns - s->begin_ns) / 1e3, pid);
    if (s->kind) {
      fprintf(f, "\"kernel\": \"");
      tfcc_rt_json_string(f, s->kind);
      fprintf(f, "\", \"entry\": \"");
      tfcc_rt_json_string(f, s->entry);
      fprintf(f, "\"}}");
    } else {
      fprintf(f, "\"batch\": %" PRId64 "}}", s->batch);
    }
  }
  fprintf(f, "\n]}\n");
  return ferror(f) ? -1 : 0;
}

static void tfcc_rt_profile_free(tfcc_context* ctx) {
  tfcc_rt_profile_record* r = (tfcc_rt_profile_record*)ctx->profile;
  if (!r) return;
  if (tfcc_rt_recording == r) tfcc_rt_recording = NULL;
  free(r->spans);
  free(r->env_path);
  free(r);
  ctx->profile = NULL;
  __atomic_fetch_sub(&tfcc_rt_profiling_active, 1, __ATOMIC_RELAXED);
}

tfcc_status_t tfcc_rt_profile_stop(const tfcc_model_info* m,
                                   tfcc_context* ctx, const char* path) {
  tfcc_rt_profile_record* r;
  FILE* f;
  int failed;
  tfcc_status_t status = tfcc_rt_profile_check(m, ctx);
  if (status != TFCC_OK) return status;
  r = (tfcc_rt_profile_record*)ctx->profile;
  if (!r) {
    tfcc_rt_profile_message(ctx, "%s%s: the context is not profiling "
                            "(call _profile_start first)", m->name,
                            "_profile_stop");
    return TFCC_FAILED_PRECONDITION;
  }
  if (!path) {
    tfcc_rt_profile_free(ctx);
    ctx->message[0] = '\0';
    return TFCC_OK;
  }
  f = fopen(path, "w");
  if (!f) {
    tfcc_rt_profile_message(ctx, "cannot write the profile '%s': %s", path,
                            strerror(errno));
    return TFCC_INVALID_ARGUMENT;
  }
  failed = tfcc_rt_write_trace(r, m, f);
  failed |= fclose(f);
  if (failed) {
    tfcc_rt_profile_message(ctx, "cannot write the profile '%s': %s", path,
                            strerror(errno));
    return TFCC_INVALID_ARGUMENT;
  }
  tfcc_rt_profile_free(ctx);
  ctx->message[0] = '\0';
  return TFCC_OK;
}

/* Whether the file at `path` is a trace (or the placeholder of one) that
 * this process wrote: another context, maybe of another model with its own
 * copy of this runtime, has it. */
static int tfcc_rt_claimed_here(const char* path) {
  char head[64], mine[64];
  size_t n;
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  n = fread(head, 1, sizeof(head) - 1, f);
  fclose(f);
  head[n] = '\0';
  snprintf(mine, sizeof(mine), "{\"otherData\": {\"pid\": %ld,", (long)getpid());
  return strncmp(head, mine, strlen(mine)) == 0;
}

void tfcc_rt_profile_from_env(tfcc_context* ctx) {
  const char* path = getenv("TFCC_PROFILE");
  const char* dot;
  size_t length, stem;
  int n;
  tfcc_rt_profile_record* r;
  FILE* f;
  if (!path || !*path || tfcc_rt_profile_start(ctx->model, ctx) != TFCC_OK)
    return;
  r = (tfcc_rt_profile_record*)ctx->profile;
  length = strlen(path);
  dot = strrchr(path, '.');
  stem = (dot && !strchr(dot, '/')) ? (size_t)(dot - path) : length;
  r->env_path = (char*)malloc(length + 16);
  if (!r->env_path) return;
  /* The process's first context writes `path`; the n-th, n >= 2, inserts
   * ".n" before the extension (trace.json, trace.2.json, ...): each claims
   * its file at creation with a placeholder holding the pid. A file of
   * another (earlier) process is overwritten. */
  for (n = 1; n < 10000; ++n) {
    if (n == 1)
      memcpy(r->env_path, path, length + 1);
    else
      sprintf(r->env_path, "%.*s.%d%s", (int)stem, path, n, path + stem);
    if (!tfcc_rt_claimed_here(r->env_path)) break;
  }
  f = fopen(r->env_path, "w");
  if (f) {
    fprintf(f, "{\"otherData\": {\"pid\": %ld, \"producer\": \"tfcc\"}, "
               "\"traceEvents\": []}\n", (long)getpid());
    fclose(f);
  }
}

void tfcc_rt_profile_release(tfcc_context* ctx) {
  tfcc_rt_profile_record* r = (tfcc_rt_profile_record*)ctx->profile;
  if (!r) return;
  if (r->env_path) {
    char* path = r->env_path;
    r->env_path = NULL;
    if (tfcc_rt_profile_stop(ctx->model, ctx, path) != TFCC_OK)
      fprintf(stderr, "tfcc: TFCC_PROFILE: %s\n", ctx->message);
    free(path);
  }
  tfcc_rt_profile_free(ctx);
}
