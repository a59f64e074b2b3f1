/* Trains the spec's mnist_cnn_train.mlir (Keras CNN with batch norm and dropout,
 * Adam lr 1e-3, clip_norm 1) on Fashion-MNIST through the library tfcc compiled
 * from it, like Keras' model.fit(x, y, epochs, batch_size, validation_split,
 * callbacks=[EarlyStopping(monitor="val_loss", patience, restore_best_weights=True)]),
 * then builds an inference-only library with the trained weights baked in
 * (tfcc --no-train --weights) and reports its test accuracy. Includes only the
 * generated mnist_cnn_train.h, tfcc's TensorBoard writer (tfcc/tfcc_summary.h),
 * libc and POSIX headers (C99).
 *
 *   train_fashion_mnist [--data DIR] [--epochs 5] [--batch-size 64] [--threads 1]
 *                       [--validation-split 0.1] [--patience 2] [--seed 1]
 *                       [--ema-momentum 0.99]
 *                       [--out DIR] [--limit-train N] [--limit-test N]
 *                       [--tfcc PATH] [--model MODEL.mlir] [--no-export]
 *                       [--logdir DIR] [--graph GRAPH.pb]
 *   train_fashion_mnist --eval-checkpoint FILE [--data DIR] [--batch-size 64] ...
 *
 * DIR (default "data") holds the uncompressed IDX files train-images-idx3-ubyte,
 * train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte.
 * Writes OUT/metrics.csv, a checkpoint per epoch (OUT/epoch_N.tfck), the restored
 * best weights (OUT/best.tfck) and the inference library OUT/fashion_mnist.so (and
 * .h); with --logdir, TensorBoard event files in LOGDIR/train and
 * LOGDIR/validation (epoch_loss, epoch_accuracy per epoch, as Keras'
 * TensorBoard callback writes them, and in train/ the model's graph: GRAPH.pb,
 * by default the one the build made with tfcc --emit=graphdef); see README.md. */
#define _POSIX_C_SOURCE 200809L
#include "mnist_cnn_train.h"
#include "tfcc/tfcc_summary.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


enum { kPixels = 28 * 28, kClasses = 10 };

/* Symbol prefix (and file stem) of the inference build with the trained weights. */
static const char kInferencePrefix[] = "fashion_mnist";

/* tfcc and the model source, for that build (CMake passes the build tree's). */
#ifndef TFCC_PATH
#define TFCC_PATH "tfcc"
#endif
#ifndef MODEL_PATH
#define MODEL_PATH "mnist_cnn_train.mlir"
#endif
#ifndef GRAPH_PATH
#define GRAPH_PATH "mnist_cnn_train.pb"
#endif

typedef struct {
  uint32_t count;
  float* images;  /* count x 28 x 28 x 1, in [0, 1] */
  int32_t* labels; /* count */
} Dataset;

static uint32_t read_be32(const unsigned char* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static unsigned char* read_whole(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data = NULL;
  long n;
  if (!f) {
    fprintf(stderr, "train_fashion_mnist: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = (unsigned char*)malloc((size_t)n);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  if (!data) fprintf(stderr, "train_fashion_mnist: cannot read %s\n", path);
  return data;
}

/* Loads an IDX image/label pair (at most `limit` images, 0: all). */
static int load_dataset(const char* dir, const char* prefix, uint32_t limit, Dataset* out) {
  char ipath[4096], lpath[4096];
  size_t ibytes = 0, lbytes = 0, i;
  unsigned char *im, *lb;
  uint32_t count;
  snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte", dir, prefix);
  snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte", dir, prefix);
  im = read_whole(ipath, &ibytes);
  lb = read_whole(lpath, &lbytes);
  if (!im || !lb) return 0;
  if (ibytes < 16 || read_be32(im) != 0x803 || read_be32(im + 8) != 28 ||
      read_be32(im + 12) != 28 || lbytes < 8 || read_be32(lb) != 0x801 ||
      read_be32(lb + 4) != read_be32(im + 4)) {
    fprintf(stderr, "train_fashion_mnist: %s/%s: not an IDX pair of 28x28 images\n", dir,
            prefix);
    return 0;
  }
  count = read_be32(im + 4);
  if (ibytes < 16 + (size_t)count * kPixels || lbytes < 8 + (size_t)count) {
    fprintf(stderr, "train_fashion_mnist: %s: truncated IDX file\n", ipath);
    return 0;
  }
  if (limit && limit < count) count = limit;
  out->count = count;
  out->images = (float*)malloc(sizeof(float) * (size_t)count * kPixels);
  out->labels = (int32_t*)malloc(sizeof(int32_t) * (size_t)count);
  if (!out->images || !out->labels) return 0;
  for (i = 0; i < (size_t)count * kPixels; ++i) out->images[i] = im[16 + i] / 255.0f;
  for (i = 0; i < count; ++i) {
    if (lb[8 + i] >= kClasses) {
      fprintf(stderr, "train_fashion_mnist: %s: label %u out of range\n", lpath, lb[8 + i]);
      return 0;
    }
    out->labels[i] = lb[8 + i];
  }
  free(im);
  free(lb);
  return 1;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the seeded PRNG of the shuffles. */
static uint64_t next_random(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void shuffle(uint32_t* order, uint32_t n, uint64_t* rng) {
  uint32_t i;
  for (i = n; i > 1; --i) {
    uint32_t j = (uint32_t)(next_random(rng) % i);
    uint32_t t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
}

static int argmax10(const float* p) {
  int best = 0, i;
  for (i = 1; i < kClasses; ++i)
    if (p[i] > p[best]) best = i;
  return best;
}

static int check(tfcc_context* ctx, tfcc_status_t status, const char* what) {
  if (status == TFCC_OK) return 1;
  fprintf(stderr, "train_fashion_mnist: %s: %s: %s\n", what, mnist_cnn_train_status_string(status),
          ctx ? ctx->message : "");
  return 0;
}

/* The whole state (weights, batch-norm statistics, Adam slots, step counter) as
 * one buffer, variable after variable in the order of mnist_cnn_train_info(). */
static uint64_t state_size(void) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  uint64_t total = 0;
  int32_t v;
  for (v = 0; v < info->num_variables; ++v) total += info->variables[v].bytes;
  return total;
}

static int snapshot_state(tfcc_context* ctx, unsigned char* buffer) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  int32_t v;
  for (v = 0; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    if (!check(ctx, mnist_cnn_train_get_variable(ctx, var->name, buffer, var->bytes), var->name))
      return 0;
    buffer += var->bytes;
  }
  return 1;
}

static int restore_state(tfcc_context* ctx, const unsigned char* buffer) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  int32_t v;
  for (v = 0; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    if (!check(ctx, mnist_cnn_train_set_variable(ctx, var->name, buffer, var->bytes), var->name))
      return 0;
    buffer += var->bytes;
  }
  return 1;
}

static int save_checkpoint(tfcc_context* ctx, const char* path) {
  return check(ctx, mnist_cnn_train_save_checkpoint(ctx, path), path);
}

static int load_checkpoint(tfcc_context* ctx, const char* path) {
  return check(ctx, mnist_cnn_train_load_checkpoint(ctx, path), path);
}

/* Keras' optimizer option use_ema=True with ema_momentum=M: an exponential moving
 * average of every trainable variable, updated after each train step
 *   average = d * average + (1 - d) * value,  d = min(M, (1 + t) / (10 + t))
 * from the initial values, t counting the steps from 0. The ramp of d is
 * TensorFlow's ExponentialMovingAverage(num_updates=t), so that short runs average
 * over their recent steps instead of the initial weights. The averaged weights are
 * the ones validated, kept by early stopping, tested and deployed; the train step
 * keeps updating the raw ones (Keras' finalize_variable_values at the end of fit).
 * Batch-norm moving statistics are not trainable and stay as they are. */
typedef struct {
  double momentum; /* M; 0: no averaging */
  uint64_t steps;  /* t */
  float* values;   /* the averages, the trainable f32 variables one after another */
  float* scratch;  /* one variable's current value */
} WeightAverage;

static int averaged(const tfcc_variable_info* var) {
  return var->trainable && var->dtype == TFCC_DTYPE_F32;
}

/* Starts the averages at the variables' current values. */
static int average_init(tfcc_context* ctx, double momentum, WeightAverage* avg) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  uint64_t total = 0, largest = 0;
  float* dst;
  int32_t v;
  avg->momentum = momentum;
  avg->steps = 0;
  avg->values = avg->scratch = NULL;
  if (momentum == 0) return 1;
  for (v = 0; v < info->num_variables; ++v)
    if (averaged(&info->variables[v])) {
      total += info->variables[v].bytes;
      if (info->variables[v].bytes > largest) largest = info->variables[v].bytes;
    }
  avg->values = (float*)malloc(total ? total : 1);
  avg->scratch = (float*)malloc(largest ? largest : 1);
  if (!avg->values || !avg->scratch) return 0;
  for (v = 0, dst = avg->values; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    if (!averaged(var)) continue;
    if (!check(ctx, mnist_cnn_train_get_variable(ctx, var->name, dst, var->bytes), var->name))
      return 0;
    dst += var->bytes / sizeof(float);
  }
  return 1;
}

static int average_update(tfcc_context* ctx, WeightAverage* avg) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  double ramp = (1.0 + (double)avg->steps) / (10.0 + (double)avg->steps);
  float d = (float)(ramp < avg->momentum ? ramp : avg->momentum);
  float* dst = avg->values;
  int32_t v;
  if (avg->momentum == 0) return 1;
  for (v = 0; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    uint64_t i, n = var->bytes / sizeof(float);
    if (!averaged(var)) continue;
    if (!check(ctx, mnist_cnn_train_get_variable(ctx, var->name, avg->scratch, var->bytes),
               var->name))
      return 0;
    for (i = 0; i < n; ++i) dst[i] = d * dst[i] + (1.0f - d) * avg->scratch[i];
    dst += n;
  }
  ++avg->steps;
  return 1;
}

/* Writes the averages into the model's trainable variables. */
static int average_apply(tfcc_context* ctx, const WeightAverage* avg) {
  const tfcc_model_info* info = mnist_cnn_train_info();
  const float* src = avg->values;
  int32_t v;
  if (avg->momentum == 0) return 1;
  for (v = 0; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    if (!averaged(var)) continue;
    if (!check(ctx, mnist_cnn_train_set_variable(ctx, var->name, src, var->bytes), var->name))
      return 0;
    src += var->bytes / sizeof(float);
  }
  return 1;
}

/* Mean loss (the `loss` entry: inference mode, batch-norm moving statistics, no
 * dropout) and accuracy (argmax of the `predict` entry) over `n` images of `d`;
 * every image's probabilities in `all_probs` (n x 10) unless it is NULL. */
static int evaluate(tfcc_context* ctx, const Dataset* d, uint32_t first, uint32_t n,
                    int64_t batch, float* probs, double* loss, double* accuracy,
                    float* all_probs) {
  double loss_sum = 0;
  uint64_t correct = 0;
  uint32_t start;
  for (start = 0; start < n; start += (uint32_t)batch) {
    uint32_t b = n - start < (uint32_t)batch ? n - start : (uint32_t)batch, i;
    const float* x = d->images + (size_t)(first + start) * kPixels;
    const int32_t* y = d->labels + first + start;
    float l = 0;
    if (!check(ctx, mnist_cnn_train_loss(ctx, b, x, y, &l), "loss") ||
        !check(ctx, mnist_cnn_train_predict(ctx, b, x, probs), "predict"))
      return 0;
    loss_sum += (double)l * b;
    for (i = 0; i < b; ++i) correct += argmax10(probs + (size_t)i * kClasses) == y[i];
    if (all_probs)
      memcpy(all_probs + (size_t)start * kClasses, probs, sizeof(float) * b * kClasses);
  }
  *loss = n ? loss_sum / n : 0;
  *accuracy = n ? (double)correct / n : 0;
  return 1;
}

/* Deployment: an inference-only build of the same model with the trained weights
 * baked in as constants (`tfcc --no-train --weights CKPT --name P`, the weights then
 * folded and packed like any model's), loaded with dlopen under its own symbol
 * prefix P, evaluated on the test set with its P_predict and compared with the
 * training build's predictions of the same weights. */
typedef tfcc_status_t (*CreateFn)(int64_t, int32_t, tfcc_context**);
typedef tfcc_status_t (*PredictFn)(tfcc_context*, int64_t, const float*, float*);
typedef void (*DestroyFn)(tfcc_context*);

static int run_tfcc(const char* tfcc, const char* model, const char* checkpoint,
                    const char* prefix, const char* out_so) {
  /* execvp takes char* const[]: writable copies of the arguments. */
  char program[4096], source[4096], no_train[] = "--no-train", weights[4200], name[256],
      dash_o[] = "-o", output[4096];
  char* args[8];
  pid_t pid;
  int status = 0;
  snprintf(program, sizeof program, "%s", tfcc);
  snprintf(source, sizeof source, "%s", model);
  snprintf(weights, sizeof weights, "--weights=%s", checkpoint);
  snprintf(name, sizeof name, "--name=%s", prefix);
  snprintf(output, sizeof output, "%s", out_so);
  args[0] = program;
  args[1] = source;
  args[2] = no_train;
  args[3] = weights;
  args[4] = name;
  args[5] = dash_o;
  args[6] = output;
  args[7] = NULL;
  printf("%s %s --no-train %s %s -o %s\n", tfcc, model, weights, name, out_so);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    execvp(program, args);
    fprintf(stderr, "train_fashion_mnist: cannot run %s: %s\n", tfcc, strerror(errno));
    _exit(127);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "train_fashion_mnist: building %s with %s failed\n", out_so, tfcc);
    return 0;
  }
  return 1;
}

/* Returns the test accuracy of the inference build in *accuracy, the number of test
 * images whose predicted class differs from `reference_probs`' (the training build's
 * predictions, count x 10) in *disagreements, the largest probability difference in
 * *max_diff. */
static int evaluate_inference_build(const char* so_path, const char* prefix,
                                    const Dataset* test, int64_t batch,
                                    const float* reference_probs, double* accuracy,
                                    uint32_t* disagreements, double* max_diff) {
  char symbol[300];
  void* lib = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  CreateFn create;
  PredictFn predict;
  DestroyFn destroy;
  tfcc_context* ctx = NULL;
  float* probs;
  uint64_t correct = 0;
  uint32_t start, i;
  int ok = 1;
  if (!lib) {
    fprintf(stderr, "train_fashion_mnist: dlopen %s: %s\n", so_path, dlerror());
    return 0;
  }
  /* dlsym returns a data pointer; POSIX guarantees it converts to a function. */
  snprintf(symbol, sizeof symbol, "%s_create_with_threads", prefix);
  *(void**)&create = dlsym(lib, symbol);
  snprintf(symbol, sizeof symbol, "%s_predict", prefix);
  *(void**)&predict = dlsym(lib, symbol);
  snprintf(symbol, sizeof symbol, "%s_destroy", prefix);
  *(void**)&destroy = dlsym(lib, symbol);
  if (!create || !predict || !destroy) {
    fprintf(stderr, "train_fashion_mnist: %s lacks %s_create_with_threads/_predict/_destroy\n",
            so_path, prefix);
    dlclose(lib);
    return 0;
  }
  probs = (float*)malloc(sizeof(float) * (size_t)batch * kClasses);
  if (!probs || create(batch, 1, &ctx) != TFCC_OK) {
    fprintf(stderr, "train_fashion_mnist: %s_create_with_threads failed\n", prefix);
    ok = 0;
  }
  *disagreements = 0;
  *max_diff = 0;
  for (start = 0; ok && start < test->count; start += (uint32_t)batch) {
    uint32_t b = test->count - start < (uint32_t)batch ? test->count - start : (uint32_t)batch;
    if (predict(ctx, b, test->images + (size_t)start * kPixels, probs) != TFCC_OK) {
      fprintf(stderr, "train_fashion_mnist: %s_predict: %s\n", prefix, ctx->message);
      ok = 0;
      break;
    }
    for (i = 0; i < b; ++i) {
      int k, cls = argmax10(probs + (size_t)i * kClasses);
      correct += cls == test->labels[start + i];
      *disagreements += cls != argmax10(reference_probs + ((size_t)start + i) * kClasses);
      for (k = 0; k < kClasses; ++k) {
        double d = fabs((double)probs[(size_t)i * kClasses + k] -
                        reference_probs[((size_t)start + i) * kClasses + k]);
        if (d > *max_diff) *max_diff = d;
      }
    }
  }
  *accuracy = test->count ? (double)correct / test->count : 0;
  if (ctx) destroy(ctx);
  free(probs);
  dlclose(lib);
  return ok;
}

/* The model's GraphDef (tfcc --emit=graphdef) into the train run's event file,
 * for TensorBoard's Graphs tab. A missing default file (the program run away
 * from its build tree) is only noted; a --graph that cannot be read is an error. */
static int write_graph(tfcc_summary_writer* w, const char* path, int given) {
  FILE* f = fopen(path, "rb");
  long size;
  char* bytes;
  int ok;
  if (!f) {
    fprintf(stderr, "train_fashion_mnist: %s the graph %s: %s\n",
            given ? "--graph: cannot read" : "note: TensorBoard gets no graph: no", path,
            strerror(errno));
    return !given;
  }
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
      !(bytes = (char*)malloc((size_t)size + 1))) {
    fprintf(stderr, "train_fashion_mnist: cannot read the graph %s\n", path);
    fclose(f);
    return 0;
  }
  ok = fread(bytes, 1, (size_t)size, f) == (size_t)size &&
       tfcc_summary_graph(w, bytes, (size_t)size) == 0;
  if (!ok) fprintf(stderr, "train_fashion_mnist: cannot write the graph %s\n", path);
  free(bytes);
  fclose(f);
  return ok;
}

static void usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--data DIR] [--epochs N] [--batch-size N] [--threads N]\n"
          "          [--validation-split F] [--patience N] [--seed N] [--out DIR]\n"
          "          [--ema-momentum M]\n"
          "          [--limit-train N] [--limit-test N] [--eval-checkpoint FILE]\n"
          "          [--tfcc PATH] [--model MODEL.mlir] [--no-export] [--logdir DIR]\n"
          "          [--graph GRAPH.pb]\n",
          argv0);
}

int main(int argc, char** argv) {
  const char* data_dir = "data";
  const char* out_dir = "train_out";
  const char* eval_checkpoint = NULL;
  const char* tfcc = TFCC_PATH;
  const char* model = MODEL_PATH;
  const char* logdir = NULL;
  const char* graph = GRAPH_PATH;
  int graph_given = 0;
  tfcc_summary_writer *tb_train = NULL, *tb_validation = NULL;
  int epochs = 5, patience = 2, threads = 1, i;
  int64_t batch = 64;
  double validation_split = 0.1;
  uint64_t seed = 1;
  uint32_t limit_train = 0, limit_test = 0;
  Dataset train = {0, NULL, NULL}, test = {0, NULL, NULL};
  uint32_t n_fit, n_val, *order;
  float *bx, *probs;
  int32_t* by;
  tfcc_context* ctx = NULL;
  unsigned char *best_state, *raw_state;
  double ema_momentum = 0.99;
  WeightAverage average;
  float* test_probs = NULL;
  double best_val = INFINITY, total_start, test_loss, test_acc;
  int best_epoch = 0, since_best = 0, epoch, ran = 0;
  char path[4096];
  FILE* csv;

  for (i = 1; i < argc; i += 2) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-export")) {
      tfcc = NULL;
      --i;
      continue;
    }
    if (!v) {
      usage(argv[0]);
      return 2;
    }
    if (!strcmp(a, "--data")) data_dir = v;
    else if (!strcmp(a, "--out")) out_dir = v;
    else if (!strcmp(a, "--eval-checkpoint")) eval_checkpoint = v;
    else if (!strcmp(a, "--tfcc")) tfcc = v;
    else if (!strcmp(a, "--model")) model = v;
    else if (!strcmp(a, "--logdir")) logdir = v;
    else if (!strcmp(a, "--graph")) graph = v, graph_given = 1;
    else if (!strcmp(a, "--epochs")) epochs = atoi(v);
    else if (!strcmp(a, "--batch-size")) batch = atoi(v);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--validation-split")) validation_split = atof(v);
    else if (!strcmp(a, "--patience")) patience = atoi(v);
    else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--ema-momentum")) ema_momentum = atof(v);
    else if (!strcmp(a, "--limit-train")) limit_train = (uint32_t)atol(v);
    else if (!strcmp(a, "--limit-test")) limit_test = (uint32_t)atol(v);
    else {
      usage(argv[0]);
      return 2;
    }
  }
  if (epochs < 1 || batch < 1 || threads < 1 || patience < 0 || validation_split < 0 ||
      validation_split >= 1) {
    usage(argv[0]);
    return 2;
  }
  if (!(ema_momentum >= 0 && ema_momentum < 1)) {
    fprintf(stderr, "train_fashion_mnist: --ema-momentum %g is not in [0, 1)\n", ema_momentum);
    usage(argv[0]);
    return 2;
  }

  if (!load_dataset(data_dir, "t10k", limit_test, &test)) return 1;
  if (!check(NULL, mnist_cnn_train_create_with_threads(batch, threads, &ctx), "create")) return 1;
  probs = (float*)malloc(sizeof(float) * (size_t)batch * kClasses);
  if (!probs) return 1;

  if (eval_checkpoint) {
    if (!load_checkpoint(ctx, eval_checkpoint) ||
        !evaluate(ctx, &test, 0, test.count, batch, probs, &test_loss, &test_acc, NULL))
      return 1;
    printf("%s: test loss %.4f, test accuracy %.4f (%u images)\n", eval_checkpoint, test_loss,
           test_acc, test.count);
    mnist_cnn_train_destroy(ctx);
    free(probs);
    free(test.images);
    free(test.labels);
    return 0;
  }

  if (!load_dataset(data_dir, "train", limit_train, &train)) return 1;
  /* Keras' validation_split: the last fraction of the data, before shuffling. */
  n_val = (uint32_t)((double)train.count * validation_split);
  n_fit = train.count - n_val;
  if (n_fit == 0) {
    fprintf(stderr, "train_fashion_mnist: no training images left\n");
    return 1;
  }
  order = (uint32_t*)malloc(sizeof(uint32_t) * n_fit);
  bx = (float*)malloc(sizeof(float) * (size_t)batch * kPixels);
  by = (int32_t*)malloc(sizeof(int32_t) * (size_t)batch);
  best_state = (unsigned char*)malloc(state_size());
  raw_state = (unsigned char*)malloc(state_size());
  if (!order || !bx || !by || !best_state || !raw_state) return 1;
  if (!average_init(ctx, ema_momentum, &average)) return 1;
  for (i = 0; (uint32_t)i < n_fit; ++i) order[i] = (uint32_t)i;

  if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "train_fashion_mnist: cannot create %s: %s\n", out_dir, strerror(errno));
    return 1;
  }
  snprintf(path, sizeof path, "%s/metrics.csv", out_dir);
  csv = fopen(path, "w");
  if (!csv) {
    fprintf(stderr, "train_fashion_mnist: cannot write %s\n", path);
    return 1;
  }
  fprintf(csv, "epoch,train_loss,train_accuracy,val_loss,val_accuracy,images_per_s,"
               "epoch_seconds\n");
  if (logdir) {
    /* Keras' TensorBoard callback: a run folder per split. */
    char error[512];
    snprintf(path, sizeof path, "%s/train", logdir);
    tb_train = tfcc_summary_open(path, error, sizeof error);
    if (tb_train && n_val) {
      snprintf(path, sizeof path, "%s/validation", logdir);
      tb_validation = tfcc_summary_open(path, error, sizeof error);
    }
    if (!tb_train || (n_val && !tb_validation)) {
      fprintf(stderr, "train_fashion_mnist: --logdir: %s\n", error);
      return 1;
    }
    if (!write_graph(tb_train, graph, graph_given)) return 1;
  }

  printf("mnist_cnn_train: %u training, %u validation, %u test images; batch %lld, "
         "%d thread%s, seed %llu, weight average momentum %g\n",
         n_fit, n_val, test.count, (long long)batch, threads, threads == 1 ? "" : "s",
         (unsigned long long)seed, ema_momentum);
  total_start = now_seconds();
  for (epoch = 1; epoch <= epochs; ++epoch) {
    uint64_t rng = seed * 0x100000001B3ull + (uint64_t)epoch, correct = 0;
    double loss_sum = 0, step_seconds = 0, epoch_start = now_seconds(), val_loss = 0,
           val_acc = 0;
    uint32_t start;
    shuffle(order, n_fit, &rng);
    for (start = 0; start < n_fit; start += (uint32_t)batch) {
      uint32_t b = n_fit - start < (uint32_t)batch ? n_fit - start : (uint32_t)batch, k;
      float loss = 0;
      double t0;
      for (k = 0; k < b; ++k) {
        uint32_t idx = order[start + k];
        memcpy(bx + (size_t)k * kPixels, train.images + (size_t)idx * kPixels,
               sizeof(float) * kPixels);
        by[k] = train.labels[idx];
      }
      /* Training accuracy: the weights before this step (Keras' running metric,
       * here in inference mode). */
      if (!check(ctx, mnist_cnn_train_predict(ctx, b, bx, probs), "predict")) return 1;
      for (k = 0; k < b; ++k) correct += argmax10(probs + (size_t)k * kClasses) == by[k];
      t0 = now_seconds();
      if (!check(ctx, mnist_cnn_train_train_step(ctx, b, bx, by, &loss), "train_step")) return 1;
      step_seconds += now_seconds() - t0;
      if (!average_update(ctx, &average)) return 1;
      loss_sum += (double)loss * b;
    }
    /* The checkpoint to resume from holds the raw training state; validation,
     * early stopping and the rest see the averaged weights. */
    ran = epoch;
    snprintf(path, sizeof path, "%s/epoch_%d.tfck", out_dir, epoch);
    if (!save_checkpoint(ctx, path)) return 1;
    if (!snapshot_state(ctx, raw_state) || !average_apply(ctx, &average)) return 1;
    if (n_val && !evaluate(ctx, &train, n_fit, n_val, batch, probs, &val_loss, &val_acc, NULL))
      return 1;
    {
      double train_loss = loss_sum / n_fit, train_acc = (double)correct / n_fit;
      double ips = n_fit / step_seconds, seconds = now_seconds() - epoch_start;
      printf("epoch %d/%d: loss %.4f - accuracy %.4f - val_loss %.4f - val_accuracy %.4f - "
             "%.0f images/s - %.1f s\n",
             epoch, epochs, train_loss, train_acc, val_loss, val_acc, ips, seconds);
      fprintf(csv, "%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.3f\n", epoch, train_loss, train_acc,
              val_loss, val_acc, ips, seconds);
      /* Steps count epochs from 0, as Keras' do. */
      if ((tb_train && (tfcc_summary_scalar(tb_train, "epoch_loss", epoch - 1, train_loss) ||
                        tfcc_summary_scalar(tb_train, "epoch_accuracy", epoch - 1, train_acc) ||
                        tfcc_summary_flush(tb_train))) ||
          (tb_validation &&
           (tfcc_summary_scalar(tb_validation, "epoch_loss", epoch - 1, val_loss) ||
            tfcc_summary_scalar(tb_validation, "epoch_accuracy", epoch - 1, val_acc) ||
            tfcc_summary_flush(tb_validation)))) {
        fprintf(stderr, "train_fashion_mnist: cannot write the event files in %s\n", logdir);
        return 1;
      }
      fflush(stdout);
      fflush(csv);
    }
    /* EarlyStopping(monitor="val_loss", patience, restore_best_weights=True);
     * without a validation split, the training loss. */
    {
      double monitored = n_val ? val_loss : loss_sum / n_fit;
      if (monitored < best_val) {
        best_val = monitored;
        best_epoch = epoch;
        since_best = 0;
        if (!snapshot_state(ctx, best_state)) return 1;
      } else if (++since_best >= patience) {
        printf("early stopping: val_loss has not improved for %d epoch%s since epoch %d\n",
               since_best, since_best == 1 ? "" : "s", best_epoch);
        break;
      }
    }
    if (!restore_state(ctx, raw_state)) return 1;
  }
  fclose(csv);
  if (best_epoch != ran)
    printf("restoring the weights of epoch %d (val_loss %.4f)\n", best_epoch, best_val);
  if (best_epoch && !restore_state(ctx, best_state)) return 1;
  snprintf(path, sizeof path, "%s/best.tfck", out_dir);
  if (!save_checkpoint(ctx, path)) return 1;

  test_probs = (float*)malloc(sizeof(float) * ((size_t)test.count + 1) * kClasses);
  if (!test_probs ||
      !evaluate(ctx, &test, 0, test.count, batch, probs, &test_loss, &test_acc, test_probs))
    return 1;
  printf("test: loss %.4f - accuracy %.4f (%u images, weights of epoch %d)\n", test_loss,
         test_acc, test.count, best_epoch);
  printf("wall time: %.1f s for %d epoch%s; metrics in %s/metrics.csv, weights in %s\n",
         now_seconds() - total_start, ran, ran == 1 ? "" : "s", out_dir, path);
  if (logdir) {
    int closed = tfcc_summary_close(tb_train) | tfcc_summary_close(tb_validation);
    if (closed) {
      fprintf(stderr, "train_fashion_mnist: cannot write the event files in %s\n", logdir);
      return 1;
    }
    printf("TensorBoard: tensorboard --logdir %s\n", logdir);
  }
  if (tfcc) {
    double so_acc, max_diff;
    uint32_t disagreements;
    char so_path[4096];
    snprintf(so_path, sizeof so_path, "%s/%s.so", out_dir, kInferencePrefix);
    if (!run_tfcc(tfcc, model, path, kInferencePrefix, so_path) ||
        !evaluate_inference_build(so_path, kInferencePrefix, &test, batch, test_probs, &so_acc,
                                  &disagreements, &max_diff))
      return 1;
    printf("inference build %s: test accuracy %.4f (%u images); %u classified differently "
           "from the training build, max |probability difference| %.2g\n",
           so_path, so_acc, test.count, disagreements, max_diff);
  }

  mnist_cnn_train_destroy(ctx);
  free(order);
  free(bx);
  free(by);
  free(probs);
  free(best_state);
  free(raw_state);
  free(average.values);
  free(average.scratch);
  free(test_probs);
  free(train.images);
  free(train.labels);
  free(test.images);
  free(test.labels);
  return 0;
}
