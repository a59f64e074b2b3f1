/* summary.c - TensorBoard event files (tfcc/tfcc_summary.h).
 *
 * The Event and Summary protos are encoded by hand (a few fields of
 * tensorflow/core/util/event.proto and framework/summary.proto): no protobuf
 * library is needed to write them. Field numbers:
 *   Event:   wall_time 1 (double), step 2 (int64), file_version 3 (string),
 *            graph_def 4 (bytes), summary 5 (Summary)
 *   Summary: value 1 (Value); Value: tag 1 (string), simple_value 2 (float)
 * Records are framed as TFRecords with masked CRC-32Cs
 * (tensorflow/core/lib/io/record_writer.cc). */
#define _POSIX_C_SOURCE 200809L

#include "tfcc/tfcc_summary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* crc32c.c, compiled under this name (summary_crc32c.c). */
uint32_t tfcc_summary_crc32c(uint32_t crc, const void* data, uint64_t size);

struct tfcc_summary_writer {
  FILE* file;
  int failed;
  char path[4096];
};

/* A growing byte buffer; `failed` after an allocation failure. */
typedef struct {
  unsigned char* data;
  size_t size, cap;
  int failed;
} Buffer;

static void put(Buffer* b, const void* p, size_t n) {
  if (b->failed) return;
  if (b->size + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->size + n) cap *= 2;
    unsigned char* grown = (unsigned char*)realloc(b->data, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->size, p, n);
  b->size += n;
}

static void put_varint(Buffer* b, uint64_t v) {
  unsigned char bytes[10];
  size_t n = 0;
  do {
    bytes[n] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) bytes[n] |= 0x80;
    ++n;
  } while (v);
  put(b, bytes, n);
}

/* Protobuf wire types. */
enum { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

static void put_key(Buffer* b, unsigned field, unsigned wire_type) {
  put_varint(b, ((uint64_t)field << 3) | wire_type);
}

static void put_le(Buffer* b, uint64_t v, size_t n) {
  unsigned char bytes[8];
  for (size_t i = 0; i < n; ++i) bytes[i] = (unsigned char)(v >> (8 * i));
  put(b, bytes, n);
}

static void put_bytes(Buffer* b, unsigned field, const void* p, size_t n) {
  put_key(b, field, kBytes);
  put_varint(b, n);
  put(b, p, n);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The masked CRC-32C of TFRecord framing. */
static uint32_t masked_crc(const void* p, size_t n) {
  uint32_t crc = tfcc_summary_crc32c(0, p, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* Appends one Event (wall_time, step, then `what`: field `field` holding the
 * `size` bytes at `payload`) as a TFRecord. */
static int write_event(tfcc_summary_writer* w, int64_t step, unsigned field,
                       const void* payload, size_t size) {
  if (w->failed) return -1;
  Buffer event = {0};
  uint64_t wall;
  double seconds = now_seconds();
  memcpy(&wall, &seconds, sizeof wall);
  put_key(&event, 1, kFixed64);
  put_le(&event, wall, 8);
  put_key(&event, 2, kVarint);
  put_varint(&event, (uint64_t)step);
  put_bytes(&event, field, payload, size);
  Buffer record = {0};
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = (unsigned char)((uint64_t)event.size >> (8 * i));
  put(&record, length, 8);
  put_le(&record, masked_crc(length, 8), 4);
  put(&record, event.data, event.size);
  put_le(&record, masked_crc(event.data, event.size), 4);
  if (event.failed || record.failed ||
      fwrite(record.data, 1, record.size, w->file) != record.size)
    w->failed = 1;
  free(event.data);
  free(record.data);
  return w->failed ? -1 : 0;
}

static void set_error(char* error, size_t size, const char* format, ...) {
  if (!error || !size) return;
  va_list args;
  va_start(args, format);
  vsnprintf(error, size, format, args);
  va_end(args);
}

/* mkdir -p. */
static int make_dirs(const char* dir) {
  char path[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (path[i] != '/' && path[i] != '\0') continue;
    char saved = path[i];
    path[i] = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    path[i] = saved;
  }
  struct stat st;
  if (stat(dir, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

tfcc_summary_writer* tfcc_summary_open(const char* dir, char* error, size_t error_size) {
  if (!dir) {
    set_error(error, error_size, "tfcc_summary_open: the folder is NULL");
    return NULL;
  }
  if (make_dirs(dir) != 0) {
    set_error(error, error_size, "cannot create the folder '%s': %s", dir, strerror(errno));
    return NULL;
  }
  tfcc_summary_writer* w = (tfcc_summary_writer*)calloc(1, sizeof *w);
  if (!w) {
    set_error(error, error_size, "out of memory");
    return NULL;
  }
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  static unsigned counter;
  /* A name no other writer has taken (two runs can start in one second). */
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int n = snprintf(w->path, sizeof w->path, "%s/events.out.tfevents.%lld.%s.%ld.%u.v2", dir,
                     (long long)time(NULL), host, (long)getpid(), counter++);
    if (n < 0 || (size_t)n >= sizeof w->path) {
      set_error(error, error_size, "the folder name '%s' is too long", dir);
      free(w);
      return NULL;
    }
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0 || !(w->file = fdopen(fd, "wb"))) {
      set_error(error, error_size, "cannot create '%s': %s", w->path, strerror(errno));
      if (fd >= 0) close(fd);
      free(w);
      return NULL;
    }
    break;
  }
  if (!w->file) {
    set_error(error, error_size, "no free event file name in '%s'", dir);
    free(w);
    return NULL;
  }
  static const char kVersion[] = "brain.Event:2";
  if (write_event(w, 0, 3, kVersion, sizeof kVersion - 1) != 0 || fflush(w->file) != 0) {
    set_error(error, error_size, "cannot write '%s': %s", w->path, strerror(errno));
    fclose(w->file);
    free(w);
    return NULL;
  }
  return w;
}

int tfcc_summary_scalar(tfcc_summary_writer* w, const char* tag, int64_t step, double value) {
  if (!w || !tag) return -1;
  Buffer v = {0}, summary = {0};
  put_bytes(&v, 1, tag, strlen(tag));
  float f = (float)value;
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  put_key(&v, 2, kFixed32);
  put_le(&v, bits, 4);
  put_bytes(&summary, 1, v.data, v.size);
  int status = v.failed || summary.failed ? (w->failed = 1, -1)
                                          : write_event(w, step, 5, summary.data, summary.size);
  free(v.data);
  free(summary.data);
  return status;
}

int tfcc_summary_graph(tfcc_summary_writer* w, const void* graph_def, size_t size) {
  if (!w || (!graph_def && size)) return -1;
  return write_event(w, 0, 4, graph_def, size);
}

int tfcc_summary_flush(tfcc_summary_writer* w) {
  if (!w) return -1;
  if (fflush(w->file) != 0) w->failed = 1;
  return w->failed ? -1 : 0;
}

int tfcc_summary_close(tfcc_summary_writer* w) {
  if (!w) return 0;
  int status = tfcc_summary_flush(w);
  if (fclose(w->file) != 0) status = -1;
  free(w);
  return status;
}

const char* tfcc_summary_path(const tfcc_summary_writer* w) { return w ? w->path : NULL; }
