//===- tfcc-serve.cpp - TF Serving's REST API for a model built by tfcc ---===//
//
// tfcc-serve MODEL.so [--host H] [--port N] [--model-name NAME] [--threads N]
//   [--model-threads N] [--max-batch N] [--max-body-bytes N] [--checkpoint F]
//
// Serves GET /v1/models/NAME, GET /v1/models/NAME/metadata, POST
// /v1/models/NAME:predict (RestApi.h) and GET /metrics. Each of the --threads
// model contexts runs one request at a time; connections wait for a free one.
// SIGTERM or SIGINT stops accepting connections, finishes the requests under
// way and exits 0. docs/serving.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompiledModel.h"
#include "tools/tfcc-serve/RestApi.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <thread>

using namespace tfcc;
using namespace tfcc::serve;

namespace {

const char *const kUsage =
    "usage: tfcc-serve MODEL.so [options]\n"
    "Serves a model built by tfcc over TensorFlow Serving's REST API.\n"
    "  --host H             address to listen on (default 127.0.0.1; 0.0.0.0: "
    "every interface)\n"
    "  --port N             TCP port (default 8501; 0: any free port)\n"
    "  --model-name NAME    the name in /v1/models/NAME (default: the "
    "model's)\n"
    "  --threads N          model contexts, i.e. requests computed at once "
    "(default: the CPU count)\n"
    "  --model-threads N    threads each computation uses (default 1)\n"
    "  --max-batch N        largest batch a request may carry (default 64)\n"
    "  --max-body-bytes N   largest request body (default 67108864)\n"
    "  --checkpoint FILE    load the model's variables from FILE (models with "
    "a train step)\n";

struct Options {
  std::string model, host = "127.0.0.1", modelName, checkpoint;
  int64_t port = 8501, threads = 0, modelThreads = 1, maxBatch = 64,
          maxBodyBytes = 64 << 20;
};

/// Parses the command line; false with `error` on a bad option.
bool parseOptions(int argc, char **argv, Options &o, std::string &error) {
  struct Integer {
    const char *name;
    int64_t *value;
    int64_t min, max;
  };
  Integer integers[] = {
      {"--port", &o.port, 0, 65535},
      {"--threads", &o.threads, 1, 1024},
      {"--model-threads", &o.modelThreads, 1, 1024},
      {"--max-batch", &o.maxBatch, 1, 1 << 24},
      {"--max-body-bytes", &o.maxBodyBytes, 1, int64_t(1) << 40}};
  struct Text {
    const char *name;
    std::string *value;
  };
  Text texts[] = {{"--host", &o.host},
                  {"--model-name", &o.modelName},
                  {"--checkpoint", &o.checkpoint}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg.rfind("--", 0) != 0) {
      if (!o.model.empty()) {
        error = "more than one model given ('" + o.model + "', '" + arg + "')";
        return false;
      }
      o.model = arg;
      continue;
    }
    size_t eq = arg.find('=');
    bool inlineValue = eq != std::string::npos;
    std::string name = inlineValue ? arg.substr(0, eq) : arg;
    auto takeValue = [&]() {
      if (inlineValue) {
        value = arg.substr(eq + 1);
        return true;
      }
      if (i + 1 >= argc) {
        error = name + " needs a value";
        return false;
      }
      value = argv[++i];
      return true;
    };
    bool known = false;
    for (Integer &option : integers) {
      if (name != option.name)
        continue;
      known = true;
      if (!takeValue())
        return false;
      char *end = nullptr;
      errno = 0;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || errno || v < option.min || v > option.max) {
        error = "invalid " + name + " '" + value + "' (an integer from " +
                std::to_string(option.min) + " to " +
                std::to_string(option.max) + ")";
        return false;
      }
      *option.value = v;
    }
    for (Text &option : texts) {
      if (name != option.name)
        continue;
      known = true;
      if (!takeValue())
        return false;
      *option.value = value;
    }
    if (!known) {
      error = "unknown option '" + arg + "'";
      return false;
    }
  }
  if (o.model.empty()) {
    error = "no model given";
    return false;
  }
  if (o.modelName.find_first_of("/:?#% ") != std::string::npos) {
    error = "--model-name '" + o.modelName +
            "' holds a character that cannot appear in the URL path";
    return false;
  }
  if (o.threads == 0)
    o.threads = std::max(1u, std::thread::hardware_concurrency());
  return true;
}

/// The model contexts, lent to one request at a time.
class ContextPool {
public:
  explicit ContextPool(std::vector<std::unique_ptr<CompiledModel>> models)
      : models_(std::move(models)) {
    for (auto &m : models_)
      free_.push_back(m.get());
  }
  CompiledModel *acquire() {
    std::unique_lock<std::mutex> lock(mutex_);
    available_.wait(lock, [&] { return !free_.empty(); });
    CompiledModel *m = free_.back();
    free_.pop_back();
    return m;
  }
  void release(CompiledModel *m) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(m);
    }
    available_.notify_one();
  }

private:
  std::vector<std::unique_ptr<CompiledModel>> models_;
  std::vector<CompiledModel *> free_;
  std::mutex mutex_;
  std::condition_variable available_;
};

/// Request counts by endpoint and status, and predict's time and rows, in
/// Prometheus' text format.
class Metrics {
public:
  void count(const std::string &endpoint, int status) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[{endpoint, status}];
  }
  void predicted(double seconds, int64_t rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    predictSeconds_ += seconds;
    ++predictCalls_;
    predictRows_ += rows;
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string t =
        "# HELP tfcc_serve_requests_total Requests answered, by endpoint and "
        "HTTP status.\n# TYPE tfcc_serve_requests_total counter\n";
    for (auto &[key, n] : requests_)
      t += "tfcc_serve_requests_total{endpoint=\"" + key.first + "\",code=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, "%.6f", predictSeconds_);
    t += "# HELP tfcc_serve_predict_seconds Time spent running the model for "
         "successful predict requests.\n# TYPE tfcc_serve_predict_seconds "
         "summary\ntfcc_serve_predict_seconds_sum " +
         std::string(seconds) + "\ntfcc_serve_predict_seconds_count " +
         std::to_string(predictCalls_) +
         "\n# HELP tfcc_serve_predict_rows_total Batch rows predicted.\n"
         "# TYPE tfcc_serve_predict_rows_total counter\n"
         "tfcc_serve_predict_rows_total " +
         std::to_string(predictRows_) + "\n";
    return t;
  }

private:
  std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  double predictSeconds_ = 0;
  uint64_t predictCalls_ = 0;
  int64_t predictRows_ = 0;
};

std::string endpointOf(const std::string &path) {
  auto endsWith = [&](const char *suffix) {
    size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (path == "/metrics")
    return "metrics";
  if (path.rfind("/v1/models/", 0) != 0)
    return "other";
  if (endsWith(":predict"))
    return "predict";
  if (endsWith("/metadata"))
    return "metadata";
  return path.find(':') == std::string::npos ? "status" : "other";
}

void send(httplib::Response &res, const Reply &reply) {
  res.status = reply.status;
  res.set_content(reply.body, "application/json");
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  Options options;
  std::string error;
  if (!parseOptions(argc, argv, options, error)) {
    std::fprintf(stderr, "tfcc-serve: %s\n%s", error.c_str(), kUsage);
    return 2;
  }

  // One context per worker, created (and loaded) before the first request.
  std::vector<std::unique_ptr<CompiledModel>> models;
  for (int64_t i = 0; i < options.threads; ++i) {
    std::unique_ptr<CompiledModel> model =
        CompiledModel::open(options.model, error);
    if (!model) {
      std::fprintf(stderr, "tfcc-serve: %s\n", error.c_str());
      return 1;
    }
    model->setThreads(int32_t(options.modelThreads));
    if (!model->reserve(options.maxBatch, error)) {
      std::fprintf(stderr, "tfcc-serve: %s (--max-batch %lld)\n", error.c_str(),
                   (long long)options.maxBatch);
      return 1;
    }
    if (!options.checkpoint.empty()) {
      if (model->info().state_bytes == 0) {
        std::fprintf(stderr,
                     "tfcc-serve: --checkpoint: model '%s' has no variables "
                     "to load (it was built without a train step)\n",
                     model->info().name);
        return 1;
      }
      if (!model->loadCheckpoint(options.checkpoint, error)) {
        std::fprintf(stderr, "tfcc-serve: --checkpoint '%s': %s\n",
                     options.checkpoint.c_str(), error.c_str());
        return 1;
      }
    }
    models.push_back(std::move(model));
  }
  const tfcc_model_info &info = models[0]->info();
  RestModel rest(info,
                 options.modelName.empty() ? info.name : options.modelName,
                 options.maxBatch);
  ContextPool pool(std::move(models));
  Metrics metrics;

  httplib::Server server;
  // Connections are served by these threads; each waits for a free context.
  size_t httpThreads = size_t(std::max<int64_t>(options.threads, 8));
  server.new_task_queue = [httpThreads] {
    return new httplib::ThreadPool(httpThreads);
  };
  // SO_REUSEADDR only: httplib's default SO_REUSEPORT lets a second server
  // bind a port already served, and then the two share its connections.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_payload_max_length(size_t(options.maxBodyBytes) * 2);

  // Checks the NAME and optional /versions/V of a path; false with a 404.
  auto checkModel = [&](const httplib::Request &req, httplib::Response &res) {
    if (req.matches[1] != rest.name()) {
      send(res, errorReply(404, "no model '" + req.matches[1].str() +
                                    "' here (this server serves '" +
                                    rest.name() + "')"));
      return false;
    }
    if (req.matches[2].matched && req.matches[2] != "1") {
      send(res, errorReply(404, "model '" + rest.name() + "' has no version '" +
                                    req.matches[2].str() +
                                    "' (tfcc-serve serves version 1)"));
      return false;
    }
    return true;
  };
  const std::string model = R"(/v1/models/([^/:]+)(?:/versions/([^/:]+))?)";
  server.Get(model, [&](const httplib::Request &req, httplib::Response &res) {
    if (checkModel(req, res))
      send(res, Reply{200, rest.statusJson()});
  });
  server.Get(model + "/metadata",
             [&](const httplib::Request &req, httplib::Response &res) {
               if (checkModel(req, res))
                 send(res, Reply{200, rest.metadataJson()});
             });
  // The body through a content reader: httplib's own reading parses a body
  // sent as a form (curl -d's default Content-Type) and refuses one above 8
  // KiB.
  server.Post(model + ":predict", [&](const httplib::Request &req,
                                      httplib::Response &res,
                                      const httplib::ContentReader &reader) {
    std::string body;
    // A body up to twice the limit is read and dropped, so that the client
    // can read the 413 (httplib refuses to read a longer one at all: the
    // connection closes under the client).
    bool tooLarge =
        req.has_header("Content-Length") &&
        std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr,
                      10) > uint64_t(options.maxBodyBytes);
    reader([&](const char *data, size_t length) {
      tooLarge |= body.size() + length > size_t(options.maxBodyBytes);
      if (tooLarge)
        body.clear();
      else
        body.append(data, length);
      return true;
    });
    if (tooLarge) {
      res.set_header("Connection", "close");
      return send(res,
                  errorReply(413, "the request body exceeds " +
                                      std::to_string(options.maxBodyBytes) +
                                      " bytes (tfcc-serve --max-body-bytes)"));
    }
    if (!checkModel(req, res))
      return;
    PredictRequest request;
    Reply reply;
    if (!rest.decodePredict(body, request, reply))
      return send(res, reply);
    std::vector<NpyArray> outputs;
    std::string why;
    auto start = std::chrono::steady_clock::now();
    CompiledModel *context = pool.acquire();
    bool ok = context->run(request.entry, request.batch, request.inputs,
                           outputs, why);
    pool.release(context);
    if (!ok) {
      // The checks above leave the model's own range checks (a derived
      // dimension too small, say): the caller's fault.
      bool callersFault = why.rfind("out of range", 0) == 0 ||
                          why.rfind("invalid argument", 0) == 0;
      return send(res, errorReply(callersFault ? 400 : 500, why));
    }
    metrics.predicted(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        request.batch);
    send(res, rest.encodePredict(request, outputs));
  });
  // Any other POST: drained (it may be a form, which httplib would refuse
  // above 8 KiB with a 413), then 404 from the error handler.
  server.Post(".*", [&](const httplib::Request &, httplib::Response &res,
                        const httplib::ContentReader &reader) {
    reader([](const char *, size_t) { return true; });
    res.status = 404;
  });
  server.Get("/metrics", [&](const httplib::Request &, httplib::Response &res) {
    res.set_content(metrics.text(), "text/plain; version=0.0.4");
  });
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&](const httplib::Request &req, httplib::Response &res) {
        if (!res.body.empty())
          return httplib::Server::HandlerResponse::Unhandled;
        std::string message =
            res.status == 413 ? "the request body exceeds " +
                                    std::to_string(options.maxBodyBytes) +
                                    " bytes (tfcc-serve --max-body-bytes)"
            : res.status == 404 ? "no endpoint " + req.method + " " + req.path +
                                      " (GET /v1/models/NAME, GET "
                                      "/v1/models/NAME/metadata, POST "
                                      "/v1/models/NAME:predict, GET /metrics)"
                                : "HTTP status " + std::to_string(res.status);
        send(res, errorReply(res.status, message));
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler([&](const httplib::Request &,
                                   httplib::Response &res,
                                   std::exception_ptr ep) {
    std::string message = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception &e) {
      message += std::string(": ") + e.what();
    } catch (...) {
    }
    send(res, errorReply(500, message));
  });
  // Counted before the response is written (httplib's post-routing handler
  // runs after the error handler has set the final status): a logger runs
  // after the client has its answer, so a /metrics request sent right after
  // could miss it.
  server.set_post_routing_handler(
      [&](const httplib::Request &req, httplib::Response &res) {
        metrics.count(endpointOf(req.path), res.status);
      });

  // SIGTERM / SIGINT reach only the thread that waits for them, which stops
  // the server; requests under way finish.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  int port = int(options.port);
  if (port == 0)
    port = server.bind_to_any_port(options.host);
  else if (!server.bind_to_port(options.host, port))
    port = -1;
  if (port < 0) {
    std::fprintf(stderr, "tfcc-serve: cannot listen on %s:%lld: %s\n",
                 options.host.c_str(), (long long)options.port,
                 std::strerror(errno));
    return 1;
  }
  std::atomic<bool> stopping{false};
  std::thread signalThread([&] {
    int signal = 0;
    sigwait(&stopSignals, &signal);
    stopping = true;
    std::fprintf(stderr, "tfcc-serve: %s: stopping\n", strsignal(signal));
    server.stop();
  });
  signalThread.detach();
  std::printf("tfcc-serve: model '%s' at http://%s:%d/v1/models/%s "
              "(%lld contexts, max batch %lld)\n",
              info.name, options.host.c_str(), port, rest.name().c_str(),
              (long long)options.threads, (long long)options.maxBatch);
  std::fflush(stdout);
  bool listened = server.listen_after_bind();
  if (!listened && !stopping) {
    std::fprintf(stderr, "tfcc-serve: the server failed\n");
    return 1;
  }
  std::fprintf(stderr, "tfcc-serve: stopped\n");
  return 0;
}
