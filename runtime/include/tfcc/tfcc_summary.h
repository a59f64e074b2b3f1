/* tfcc_summary.h - TensorBoard event files from C (libtfcc_summary.a).
 *
 * A training program writes what Keras' TensorBoard callback writes: one
 * event file per run folder (DIR/train, DIR/validation), each a sequence of
 * TFRecords (length, masked CRC-32C of the length, data, masked CRC-32C of the
 * data) holding serialized tensorflow.Event protos: a file_version event
 * first, then the graph and scalar summaries (Summary.Value.simple_value) by
 * tag and step.
 * `tensorboard --logdir DIR` shows them (docs/tensorboard.md). Plain C99 and
 * POSIX (mkdir, getpid, gethostname); not part of the model runtime: a
 * program links it next to its models.
 */
#ifndef TFCC_SUMMARY_H_
#define TFCC_SUMMARY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfcc_summary_writer tfcc_summary_writer;

/* Creates `dir` (and its parents) if needed and a new event file in it,
 * events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2, starting with the
 * file_version event. Returns NULL with `error` (error_size bytes, may be
 * NULL) saying why: the folder or the file cannot be created, no memory. */
tfcc_summary_writer* tfcc_summary_open(const char* dir, char* error, size_t error_size);

/* Appends a scalar summary `tag` = `value` (stored as a float) at `step`,
 * timed now. Returns 0, or -1 when writing failed (the writer then fails
 * every later call too). */
int tfcc_summary_scalar(tfcc_summary_writer* w, const char* tag, int64_t step, double value);

/* Appends the model's graph, `size` bytes of a serialized tensorflow.GraphDef
 * (tfcc --emit=graphdef), for TensorBoard's Graphs tab. Returns 0 or -1. */
int tfcc_summary_graph(tfcc_summary_writer* w, const void* graph_def, size_t size);

/* Writes what is buffered to the file (TensorBoard reads files while they
 * grow). Returns 0 or -1. */
int tfcc_summary_flush(tfcc_summary_writer* w);

/* Flushes, closes and frees `w` (NULL-safe). Returns 0 when every write of the
 * writer succeeded, -1 otherwise. */
int tfcc_summary_close(tfcc_summary_writer* w);

/* The path of the writer's event file (owned by the writer). */
const char* tfcc_summary_path(const tfcc_summary_writer* w);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFCC_SUMMARY_H_ */
