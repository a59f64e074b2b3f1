/* checkpoint.c - save and load the state memory of a model with a training
 * step as a FlatBuffers file (schema: runtime/checkpoint.fbs, file identifier
 * "TFCK", format version 2: version 1 lacked the variables' CRC-32C).
 *
 * The FlatBuffers binary format is written and read by hand (C99 + libc; no
 * FlatBuffers library): a little-endian uoffset to the root table, the file
 * identifier, then tables (an soffset to their vtable, then the fields),
 * vtables (uint16 sizes and field offsets), vectors and strings (a uint32
 * length, then the elements; strings end with a NUL). Every uoffset points
 * forward; the writer lays objects out front to back. The reader checks every
 * offset and length against the buffer before it uses it.
 *
 * Memory: saving allocates the whole file in one malloc'd buffer and loading
 * reads the whole file into one; both are freed before returning. Neither is
 * on the train_step path (which never allocates).
 */
#if defined(__unix__) || defined(__APPLE__)
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <unistd.h>
#define TFCC_CKPT_HAVE_FSYNC 1
#endif

#include "tfcc/tfcc_runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TFCC_CKPT_VERSION TFCC_CHECKPOINT_FORMAT_VERSION
#define TFCC_CKPT_ID "TFCK"

/* Field ids (positions in the vtable) of checkpoint.fbs. */
enum { CK_VERSION = 0, CK_MODEL = 1, CK_VARIABLES = 2, CK_NUM_FIELDS = 3 };
enum {
  VAR_NAME = 0,
  VAR_DTYPE = 1,
  VAR_SHAPE = 2,
  VAR_TRAINABLE = 3,
  VAR_DATA = 4,
  VAR_CRC32C = 5,
  VAR_NUM_FIELDS = 6
};

/*===----------------------------------------------------------------------===*
 * Messages
 *===----------------------------------------------------------------------===*/

#ifdef TFCC_RT_NO_MESSAGES
#define CK_MESSAGE(ctx, ...) ((ctx)->message[0] = '\0')
#else
#define CK_MESSAGE(ctx, ...) ck_message(ctx, __VA_ARGS__)
static void ck_message(tfcc_context* ctx, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(ctx->message, sizeof(ctx->message), format, args);
  va_end(args);
}
#endif

static const char* ck_model_name(const tfcc_model_info* m) {
  return (m && m->name) ? m->name : "";
}

static tfcc_status_t ck_check_context(const tfcc_model_info* m,
                                      tfcc_context* ctx, const char* what,
                                      const char* path) {
  if (!ctx) return TFCC_INVALID_ARGUMENT;
  if (!m || ctx->model != m) {
    CK_MESSAGE(ctx, "%s_checkpoint: the context is not initialized for model %s",
               what, ck_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  if (!path) {
    CK_MESSAGE(ctx, "%s_%s_checkpoint: the path is NULL", ck_model_name(m),
               what);
    return TFCC_INVALID_ARGUMENT;
  }
  if (m->num_variables <= 0 || !ctx->state) {
    CK_MESSAGE(ctx,
               "%s_%s_checkpoint: model %s has no state (only models with a "
               "training step keep variables)",
               ck_model_name(m), what, ck_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  return TFCC_OK;
}

/* Bytes per element of a dtype; 0 for an unknown one. */
static uint32_t ck_elem_size(int32_t dtype) {
  switch (dtype) {
#define CK_DTYPE_SIZE(name, number, bytes, ctype) \
  case TFCC_DTYPE_##name:                          \
    return bytes;
    TFCC_DTYPES(CK_DTYPE_SIZE)
#undef CK_DTYPE_SIZE
    default: return 0;
  }
}

static int ck_host_is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t*)&one == 1;
}

/* Copies `bytes` bytes of elements of `elem` bytes, swapping each element's
 * bytes on a big-endian host (the file is little-endian). */
static void ck_copy_le(void* dst, const void* src, uint64_t bytes,
                       uint32_t elem) {
  uint64_t i;
  uint32_t k;
  if (ck_host_is_little_endian() || elem <= 1) {
    memcpy(dst, src, (size_t)bytes);
    return;
  }
  for (i = 0; i + elem <= bytes; i += elem)
    for (k = 0; k < elem; ++k)
      ((uint8_t*)dst)[i + k] = ((const uint8_t*)src)[i + elem - 1 - k];
}

/*===----------------------------------------------------------------------===*
 * Writer
 *===----------------------------------------------------------------------===*/

typedef struct ck_writer {
  uint8_t* buf;
  uint64_t pos, cap;
} ck_writer;

static void w_u8(ck_writer* w, uint64_t at, uint8_t v) { w->buf[at] = v; }
static void w_u16(ck_writer* w, uint64_t at, uint16_t v) {
  w->buf[at] = (uint8_t)v;
  w->buf[at + 1] = (uint8_t)(v >> 8);
}
static void w_u32(ck_writer* w, uint64_t at, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) w->buf[at + i] = (uint8_t)(v >> (8 * i));
}
static void w_u64(ck_writer* w, uint64_t at, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) w->buf[at + i] = (uint8_t)(v >> (8 * i));
}
/* Reserves `n` bytes at a multiple of `align` (the buffer is zeroed). */
static uint64_t w_alloc(ck_writer* w, uint64_t n, uint64_t align) {
  uint64_t at = (w->pos + align - 1) / align * align;
  w->pos = at + n;
  return at;
}
/* A uoffset at `at` pointing to `target` (target > at). */
static void w_ref(ck_writer* w, uint64_t at, uint64_t target) {
  w_u32(w, at, (uint32_t)(target - at));
}
/* A vtable with `n` fields of the given offsets and the table's inline size,
 * then the table (4-aligned, right after); returns the table's position. */
static uint64_t w_table(ck_writer* w, int n, const uint16_t* offsets,
                        uint16_t table_size) {
  uint64_t vt = w_alloc(w, 4 + 2 * (uint64_t)n, 4), table;
  int i;
  w_u16(w, vt, (uint16_t)(4 + 2 * n));
  w_u16(w, vt + 2, table_size);
  for (i = 0; i < n; ++i) w_u16(w, vt + 4 + 2 * i, offsets[i]);
  table = w_alloc(w, table_size, 8);
  w_u32(w, table, (uint32_t)(int32_t)(table - vt)); /* soffset: vtable before */
  return table;
}
static uint64_t w_string(ck_writer* w, const char* s) {
  uint64_t n = strlen(s), at = w_alloc(w, 4 + n + 1, 4);
  w_u32(w, at, (uint32_t)n);
  memcpy(w->buf + at + 4, s, (size_t)n);
  return at;
}
/* A vector header whose elements start at a multiple of `align`. */
static uint64_t w_vector(ck_writer* w, uint64_t count, uint64_t elem,
                         uint64_t align) {
  uint64_t at = (w->pos + 4 + align - 1) / align * align - 4;
  w->pos = at + 4 + count * elem;
  w_u32(w, at, (uint32_t)count);
  return at;
}

/* Upper bound of the file size of the state of `m`. */
static uint64_t ck_size_bound(const tfcc_model_info* m) {
  uint64_t n = 128 + strlen(ck_model_name(m));
  int32_t i;
  for (i = 0; i < m->num_variables; ++i) {
    const tfcc_variable_info* v = &m->variables[i];
    n += 128 + strlen(v->name ? v->name : "") + 8 * (uint64_t)v->rank +
         v->bytes;
  }
  return n;
}

/* Serializes the state of ctx into a malloc'd buffer. */
static tfcc_status_t ck_serialize(const tfcc_model_info* m, tfcc_context* ctx,
                                  uint8_t** out, uint64_t* out_size) {
  ck_writer w;
  uint64_t root, vars;
  int32_t i, d;
  static const uint16_t root_fields[CK_NUM_FIELDS] = {4, 8, 12};
  static const uint16_t var_fields[VAR_NUM_FIELDS] = {4, 8, 12, 24, 16, 20};
  w.cap = ck_size_bound(m);
  w.pos = 0;
  w.buf = w.cap > (uint64_t)(size_t)-1 ? NULL : (uint8_t*)calloc(1, (size_t)w.cap);
  if (!w.buf) {
    CK_MESSAGE(ctx, "%s_save_checkpoint: out of memory (%" PRIu64 " bytes)",
               ck_model_name(m), w.cap);
    return TFCC_RESOURCE_EXHAUSTED;
  }
  w_alloc(&w, 8, 1); /* root uoffset + identifier */
  memcpy(w.buf + 4, TFCC_CKPT_ID, 4);
  root = w_table(&w, CK_NUM_FIELDS, root_fields, 16);
  w_ref(&w, 0, root);
  w_u32(&w, root + 4, TFCC_CKPT_VERSION);
  w_ref(&w, root + 8, w_string(&w, ck_model_name(m)));
  vars = w_vector(&w, (uint64_t)m->num_variables, 4, 4);
  w_ref(&w, root + 12, vars);
  for (i = 0; i < m->num_variables; ++i) {
    const tfcc_variable_info* v = &m->variables[i];
    uint64_t table, shape, data;
    if (!v->name || v->offset + v->bytes > ctx->state_bytes ||
        ck_elem_size(v->dtype) == 0 || v->rank < 0) {
      free(w.buf);
      CK_MESSAGE(ctx, "%s_save_checkpoint: malformed variable table (entry %d)",
                 ck_model_name(m), (int)i);
      return TFCC_INTERNAL;
    }
    /* Table: soffset, name, dtype, shape, data, crc32c, trainable (+3
     * padding). */
    table = w_table(&w, VAR_NUM_FIELDS, var_fields, 28);
    w_ref(&w, vars + 4 + 4 * (uint64_t)i, table);
    w_ref(&w, table + 4, w_string(&w, v->name));
    w_u32(&w, table + 8, (uint32_t)v->dtype);
    shape = w_vector(&w, (uint64_t)v->rank, 8, 8);
    for (d = 0; d < v->rank; ++d)
      w_u64(&w, shape + 4 + 8 * (uint64_t)d, (uint64_t)v->dims[d]);
    w_ref(&w, table + 12, shape);
    data = w_vector(&w, v->bytes, 1, 16);
    ck_copy_le(w.buf + data + 4, (const uint8_t*)ctx->state + v->offset,
               v->bytes, ck_elem_size(v->dtype));
    w_ref(&w, table + 16, data);
    w_u32(&w, table + 20, tfcc_rt_crc32c(0, w.buf + data + 4, v->bytes));
    w_u8(&w, table + 24, v->trainable ? 1 : 0);
  }
  *out = w.buf;
  *out_size = w.pos;
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_save_checkpoint(const tfcc_model_info* m,
                                      tfcc_context* ctx, const char* path) {
  uint8_t* buf = NULL;
  uint64_t size = 0;
  char* tmp;
  FILE* f;
  int failed, err = 0;
  size_t n;
  tfcc_status_t status = ck_check_context(m, ctx, "save", path);
  if (status != TFCC_OK) return status;
  status = ck_serialize(m, ctx, &buf, &size);
  if (status != TFCC_OK) return status;
  n = strlen(path);
  tmp = (char*)malloc(n + 5);
  if (!tmp) {
    free(buf);
    CK_MESSAGE(ctx, "%s_save_checkpoint: out of memory", ck_model_name(m));
    return TFCC_RESOURCE_EXHAUSTED;
  }
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  errno = 0;
  f = fopen(tmp, "wb");
  if (!f) {
    err = errno;
    CK_MESSAGE(ctx, "%s_save_checkpoint: cannot create '%s': %s",
               ck_model_name(m), tmp, strerror(err));
    free(tmp);
    free(buf);
    return TFCC_INVALID_ARGUMENT;
  }
  failed = fwrite(buf, 1, (size_t)size, f) != (size_t)size;
  if (failed) err = errno;
  if (!failed && fflush(f) != 0) failed = 1, err = errno;
#ifdef TFCC_CKPT_HAVE_FSYNC
  if (!failed && fsync(fileno(f)) != 0) failed = 1, err = errno;
#endif
  if (fclose(f) != 0 && !failed) failed = 1, err = errno;
  free(buf);
  if (failed) {
    CK_MESSAGE(ctx, "%s_save_checkpoint: cannot write '%s': %s",
               ck_model_name(m), tmp, err ? strerror(err) : "write failed");
    remove(tmp);
    free(tmp);
    return err == ENOSPC ? TFCC_RESOURCE_EXHAUSTED : TFCC_INVALID_ARGUMENT;
  }
  if (rename(tmp, path) != 0) {
    err = errno;
    CK_MESSAGE(ctx, "%s_save_checkpoint: cannot rename '%s' to '%s': %s",
               ck_model_name(m), tmp, path, strerror(err));
    remove(tmp);
    free(tmp);
    return TFCC_INVALID_ARGUMENT;
  }
  free(tmp);
  ctx->message[0] = '\0';
  return TFCC_OK;
}

/*===----------------------------------------------------------------------===*
 * Reader
 *===----------------------------------------------------------------------===*/

typedef struct ck_reader {
  const uint8_t* buf;
  uint64_t size;
} ck_reader;

static uint32_t r_u32(const ck_reader* r, uint64_t at) {
  const uint8_t* p = r->buf + at;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint16_t r_u16(const ck_reader* r, uint64_t at) {
  return (uint16_t)(r->buf[at] | r->buf[at + 1] << 8);
}
static uint64_t r_u64(const ck_reader* r, uint64_t at) {
  return (uint64_t)r_u32(r, at) | (uint64_t)r_u32(r, at + 4) << 32;
}
static int r_fits(const ck_reader* r, uint64_t at, uint64_t n) {
  return at <= r->size && n <= r->size - at;
}

/* A table at `at`: checks its soffset, vtable and inline size. */
typedef struct ck_table {
  uint64_t at, vtable;
  uint16_t vt_size, size;
} ck_table;

static int r_table(const ck_reader* r, uint64_t at, ck_table* t) {
  int64_t vt;
  if (at % 4 != 0 || !r_fits(r, at, 4)) return 0;
  vt = (int64_t)at - (int64_t)(int32_t)r_u32(r, at);
  if (vt < 0 || vt % 2 != 0 || !r_fits(r, (uint64_t)vt, 4)) return 0;
  t->at = at;
  t->vtable = (uint64_t)vt;
  t->vt_size = r_u16(r, t->vtable);
  t->size = r_u16(r, t->vtable + 2);
  if (t->vt_size < 4 || t->vt_size % 2 != 0 ||
      !r_fits(r, t->vtable, t->vt_size) || t->size < 4 ||
      !r_fits(r, at, t->size))
    return 0;
  return 1;
}

/* Position of field `id` of `bytes` bytes in table t; 0 when absent, -1 when
 * it does not fit the table. */
static int64_t r_field(const ck_reader* r, const ck_table* t, int id,
                       uint64_t bytes) {
  uint16_t off;
  if (4 + 2 * (uint64_t)id >= t->vt_size) return 0;
  off = r_u16(r, t->vtable + 4 + 2 * (uint64_t)id);
  if (off == 0) return 0;
  if (off < 4 || (uint64_t)off + bytes > t->size || (t->at + off) % bytes != 0)
    return -1;
  return (int64_t)(t->at + off);
}

/* Follows the uoffset at `at`; 0 for an offset of 0, which FlatBuffers
 * forbids (it would point at itself). */
static uint64_t r_follow(const ck_reader* r, uint64_t at) {
  uint32_t offset = r_u32(r, at);
  return offset ? at + offset : 0;
}

/* Follows the uoffset of field `id` (1 on success; *target = 0 when the field
 * is absent). */
static int r_ref(const ck_reader* r, const ck_table* t, int id,
                 uint64_t* target) {
  int64_t f = r_field(r, t, id, 4);
  *target = 0;
  if (f < 0) return 0;
  if (f == 0) return 1;
  *target = r_follow(r, (uint64_t)f);
  return *target && r_fits(r, *target, 4) && *target % 4 == 0;
}

/* A vector of `count` elements of `elem` bytes at `at` (elements are read
 * byte by byte: only the length needs its alignment, as in FlatBuffers'
 * verifier, which r_ref checks). */
static int r_vector(const ck_reader* r, uint64_t at, uint64_t elem,
                    uint64_t* count) {
  if (!r_fits(r, at, 4)) return 0;
  *count = r_u32(r, at);
  return r_fits(r, at + 4, *count * elem);
}

/* A string at `at`: its length in *len (the NUL after it checked). */
static int r_string(const ck_reader* r, uint64_t at, uint64_t* len) {
  if (!r_vector(r, at, 1, len) || !r_fits(r, at + 4, *len + 1)) return 0;
  return r->buf[at + 4 + *len] == 0;
}

static int r_string_eq(const ck_reader* r, uint64_t at, uint64_t len,
                       const char* s) {
  return s && strlen(s) == len && memcmp(r->buf + at + 4, s, (size_t)len) == 0;
}

/* Copies at most 64 bytes of the string at `at` into `out` for messages
 * (non-printable bytes as '?'). */
static const char* r_string_copy(const ck_reader* r, uint64_t at, uint64_t len,
                                 char* out, size_t cap) {
  size_t i, n = len < cap - 1 ? (size_t)len : cap - 1;
  for (i = 0; i < n; ++i) {
    uint8_t c = r->buf[at + 4 + i];
    out[i] = (c >= 32 && c < 127) ? (char)c : '?';
  }
  out[n] = '\0';
  return out;
}

#define CK_CORRUPT(what)                                                     \
  do {                                                                       \
    CK_MESSAGE(ctx, "%s_load_checkpoint: %s: corrupt checkpoint (%s)",       \
               ck_model_name(m), source, what);                              \
    return TFCC_INVALID_ARGUMENT;                                            \
  } while (0)

/* Check pass, then copy pass: validates everything in `buf` against the
 * variable table of `m`; copies into the state only when all of it is valid.
 * `source` names the buffer in messages. `seen` has num_variables bytes. */
static tfcc_status_t ck_parse(const tfcc_model_info* m, tfcc_context* ctx,
                              const uint8_t* buf, uint64_t size,
                              const char* source, uint8_t* seen) {
  ck_reader r;
  ck_table root, var;
  uint64_t model, model_len, vars, count, i, at;
  int64_t f;
  uint32_t version;
  int pass;
  char name[72];
  r.buf = buf;
  r.size = size;
  if (size < 8) CK_CORRUPT("shorter than a FlatBuffers header");
  if (memcmp(buf + 4, TFCC_CKPT_ID, 4) != 0)
    CK_CORRUPT("file identifier is not \"" TFCC_CKPT_ID "\"");
  if (!r_follow(&r, 0) || !r_table(&r, r_follow(&r, 0), &root))
    CK_CORRUPT("bad root table");
  f = r_field(&r, &root, CK_VERSION, 4);
  if (f < 0) CK_CORRUPT("bad version field");
  version = f ? r_u32(&r, (uint64_t)f) : 0;
  if (version != TFCC_CKPT_VERSION) {
    CK_MESSAGE(ctx,
               "%s_load_checkpoint: %s: unsupported checkpoint format version "
               "%" PRIu32 " (this runtime reads version %u)",
               ck_model_name(m), source, version, TFCC_CKPT_VERSION);
    return TFCC_INVALID_ARGUMENT;
  }
  if (!r_ref(&r, &root, CK_MODEL, &model) || !model ||
      !r_string(&r, model, &model_len))
    CK_CORRUPT("bad model name");
  if (!r_string_eq(&r, model, model_len, m->name)) {
    CK_MESSAGE(ctx,
               "%s_load_checkpoint: %s is a checkpoint of model '%s', not %s",
               ck_model_name(m), source,
               r_string_copy(&r, model, model_len, name, sizeof name),
               ck_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  if (!r_ref(&r, &root, CK_VARIABLES, &vars)) CK_CORRUPT("bad variable list");
  count = 0;
  if (vars && !r_vector(&r, vars, 4, &count))
    CK_CORRUPT("bad variable list");
  memset(seen, 0, (size_t)m->num_variables);
  /* Pass 0 checks every variable; pass 1 copies. */
  for (pass = 0; pass < 2; ++pass) {
    for (i = 0; i < count; ++i) {
      const tfcc_variable_info* v = NULL;
      uint64_t name_at, name_len, shape, rank, data, bytes, d;
      int32_t dtype, k;
      at = vars + 4 + 4 * i;
      if (!r_follow(&r, at) || !r_table(&r, r_follow(&r, at), &var))
        CK_CORRUPT("bad variable");
      if (!r_ref(&r, &var, VAR_NAME, &name_at) || !name_at ||
          !r_string(&r, name_at, &name_len))
        CK_CORRUPT("bad variable name");
      for (k = 0; k < m->num_variables; ++k)
        if (r_string_eq(&r, name_at, name_len, m->variables[k].name)) {
          v = &m->variables[k];
          break;
        }
      r_string_copy(&r, name_at, name_len, name, sizeof name);
      if (!v) {
        CK_MESSAGE(ctx, "%s_load_checkpoint: %s: model %s has no variable '%s'",
                   ck_model_name(m), source, ck_model_name(m), name);
        return TFCC_INVALID_ARGUMENT;
      }
      f = r_field(&r, &var, VAR_DTYPE, 4);
      if (f < 0) CK_CORRUPT("bad dtype field");
      dtype = f ? (int32_t)r_u32(&r, (uint64_t)f) : 0;
      if (!r_ref(&r, &var, VAR_SHAPE, &shape)) CK_CORRUPT("bad shape");
      rank = 0;
      if (shape && !r_vector(&r, shape, 8, &rank)) CK_CORRUPT("bad shape");
      if (!r_ref(&r, &var, VAR_DATA, &data)) CK_CORRUPT("bad data");
      bytes = 0;
      if (data && !r_vector(&r, data, 1, &bytes)) CK_CORRUPT("bad data");
      if (pass == 1) {
        ck_copy_le((uint8_t*)ctx->state + v->offset, r.buf + data + 4, bytes,
                   ck_elem_size(v->dtype));
        continue;
      }
      if (dtype != v->dtype) {
        CK_MESSAGE(ctx,
                   "%s_load_checkpoint: %s: variable '%s' has dtype %d in the "
                   "checkpoint, %d in the model",
                   ck_model_name(m), source, name, (int)dtype, (int)v->dtype);
        return TFCC_INVALID_ARGUMENT;
      }
      for (d = 0; rank == (uint64_t)v->rank && d < rank; ++d)
        if (r_u64(&r, shape + 4 + 8 * d) != (uint64_t)v->dims[d]) break;
      if (rank != (uint64_t)v->rank || d != rank) {
        char got[64], want[64];
        size_t g = 0, w = 0;
        got[0] = want[0] = '\0';
        for (d = 0; d < rank && g < sizeof got - 24; ++d)
          g += (size_t)snprintf(got + g, sizeof got - g, d ? "x%" PRId64 : "%" PRId64,
                                (int64_t)r_u64(&r, shape + 4 + 8 * d));
        for (k = 0; k < v->rank && w < sizeof want - 24; ++k)
          w += (size_t)snprintf(want + w, sizeof want - w,
                                k ? "x%" PRId64 : "%" PRId64, v->dims[k]);
        CK_MESSAGE(ctx,
                   "%s_load_checkpoint: %s: variable '%s' has shape [%s] in the "
                   "checkpoint, [%s] in the model",
                   ck_model_name(m), source, name, got, want);
        return TFCC_INVALID_ARGUMENT;
      }
      if (bytes != v->bytes) {
        CK_MESSAGE(ctx,
                   "%s_load_checkpoint: %s: variable '%s' has %" PRIu64
                   " bytes of data, the model needs %" PRIu64,
                   ck_model_name(m), source, name, bytes, v->bytes);
        return TFCC_INVALID_ARGUMENT;
      }
      if (v->offset + v->bytes > ctx->state_bytes) {
        CK_MESSAGE(ctx, "%s: variable '%s' lies outside the state",
                   ck_model_name(m), name);
        return TFCC_INTERNAL;
      }
      /* Informational, but a malformed field is a malformed file (as for
       * FlatBuffers' verifier and tfcc --weights). */
      if (r_field(&r, &var, VAR_TRAINABLE, 1) < 0)
        CK_CORRUPT("bad trainable field");
      f = r_field(&r, &var, VAR_CRC32C, 4);
      if (f < 0) CK_CORRUPT("bad crc32c field");
      {
        uint32_t stored = f ? r_u32(&r, (uint64_t)f) : 0;
        uint32_t actual = tfcc_rt_crc32c(0, r.buf + data + 4, bytes);
        if (stored != actual) {
          CK_MESSAGE(ctx,
                     "%s_load_checkpoint: %s: corrupt checkpoint (the data of "
                     "variable '%s' has CRC-32C 0x%08" PRIx32
                     ", the file says 0x%08" PRIx32 ")",
                     ck_model_name(m), source, name, actual, stored);
          return TFCC_INVALID_ARGUMENT;
        }
      }
      if (seen[v - m->variables]) {
        CK_MESSAGE(ctx, "%s_load_checkpoint: %s: variable '%s' appears twice",
                   ck_model_name(m), source, name);
        return TFCC_INVALID_ARGUMENT;
      }
      seen[v - m->variables] = 1;
    }
    if (pass == 0)
      for (i = 0; i < (uint64_t)m->num_variables; ++i)
        if (!seen[i]) {
          CK_MESSAGE(ctx, "%s_load_checkpoint: %s lacks variable '%s'",
                     ck_model_name(m), source,
                     m->variables[i].name ? m->variables[i].name : "");
          return TFCC_INVALID_ARGUMENT;
        }
  }
  ctx->message[0] = '\0';
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_load_checkpoint_buffer(const tfcc_model_info* m,
                                             tfcc_context* ctx,
                                             const void* data, uint64_t size) {
  uint8_t* seen;
  tfcc_status_t status = ck_check_context(m, ctx, "load", "");
  if (status != TFCC_OK) return status;
  if (!data && size > 0) {
    CK_MESSAGE(ctx, "%s_load_checkpoint: the data pointer is NULL",
               ck_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  seen = (uint8_t*)malloc((size_t)m->num_variables);
  if (!seen) {
    CK_MESSAGE(ctx, "%s_load_checkpoint: out of memory", ck_model_name(m));
    return TFCC_RESOURCE_EXHAUSTED;
  }
  status = ck_parse(m, ctx, (const uint8_t*)data, data ? size : 0, "buffer",
                    seen);
  free(seen);
  return status;
}

tfcc_status_t tfcc_rt_load_checkpoint(const tfcc_model_info* m,
                                      tfcc_context* ctx, const char* path) {
  FILE* f;
  uint8_t *buf, *seen;
  uint64_t size = 0, cap = 1 << 16, limit;
  size_t n;
  int err;
  tfcc_status_t status = ck_check_context(m, ctx, "load", path);
  if (status != TFCC_OK) return status;
  errno = 0;
  f = fopen(path, "rb");
  if (!f) {
    err = errno;
    CK_MESSAGE(ctx, "%s_load_checkpoint: cannot open '%s': %s",
               ck_model_name(m), path, strerror(err));
    return TFCC_INVALID_ARGUMENT;
  }
  /* Read it all, growing the buffer (no fseek: works on any stream), but no
   * further than any checkpoint of this model can reach (twice what this
   * writer makes, for other writers' padding): /dev/zero or an endless pipe
   * would otherwise take all memory. */
  limit = 2 * ck_size_bound(m) + (1u << 20);
  buf = (uint8_t*)malloc((size_t)cap);
  while (buf) {
    n = fread(buf + size, 1, (size_t)(cap - size), f);
    size += n;
    if (size > limit) {
      fclose(f);
      free(buf);
      CK_MESSAGE(ctx,
                 "%s_load_checkpoint: '%s' is larger than any checkpoint of "
                 "this model (%" PRIu64 " bytes at most)",
                 ck_model_name(m), path, limit);
      return TFCC_INVALID_ARGUMENT;
    }
    if (size < cap) break;
    if (cap > ((uint64_t)(size_t)-1) / 4) {
      free(buf);
      buf = NULL;
      break;
    }
    {
      uint8_t* grown = (uint8_t*)realloc(buf, (size_t)(cap * 2));
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  if (!buf) {
    fclose(f);
    CK_MESSAGE(ctx, "%s_load_checkpoint: out of memory reading '%s'",
               ck_model_name(m), path);
    return TFCC_RESOURCE_EXHAUSTED;
  }
  if (ferror(f)) {
    err = errno;
    fclose(f);
    free(buf);
    CK_MESSAGE(ctx, "%s_load_checkpoint: cannot read '%s': %s",
               ck_model_name(m), path, err ? strerror(err) : "read error");
    return TFCC_INVALID_ARGUMENT;
  }
  fclose(f);
  seen = (uint8_t*)malloc((size_t)m->num_variables);
  if (!seen) {
    free(buf);
    CK_MESSAGE(ctx, "%s_load_checkpoint: out of memory", ck_model_name(m));
    return TFCC_RESOURCE_EXHAUSTED;
  }
  status = ck_parse(m, ctx, buf, size, path, seen);
  free(seen);
  free(buf);
  return status;
}
