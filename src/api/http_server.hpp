// The HTTP side of the API (cpp-httplib from Debian): plain HTTP/1.1 with keep-alive, every
// request handed to the ApiServer, watches streamed as chunked JSON lines.
//
// Connections (issue 16): httplib serves a connection on one thread for as long as it reads
// from it, so idle and slowly-sending clients would each hold a thread. The server therefore
// accepts on a socket of its own and keeps every new connection in a gate (one epoll thread,
// no thread per connection) until its whole request header has arrived (plain HTTP; with TLS,
// until the first bytes of the handshake), as Go's net/http reads headers under a deadline:
// a connection that has not sent a complete header within kube-apiserver's ReadHeaderTimeout
// (32 s) is closed. Only then does a worker of an elastic pool (threads made on demand, up to
// kMaxWorkers) serve it: plain HTTP one request at a time (httplib's Server::process_request),
// after which a keep-alive connection goes back to the gate until its next request or
// kube-apiserver's IdleTimeout (90 s); with TLS, httplib's own keep-alive loop on the worker.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/api_server.hpp"
#include "api/tcp_queue_probe.hpp"
#include "api/tls.hpp"

namespace httplib {
class Server;
struct Request;
struct Response;
}

namespace kubesim::api {

class HttpServer {
 public:
  // kube-apiserver's --max-request-bytes default for JSON bodies (3 MiB,
  // staging/src/k8s.io/apiserver/pkg/server/config.go MaxRequestBodyBytes).
  static constexpr std::size_t kMaxRequestBytes = 3 * 1024 * 1024;

  struct Options {
    // When set, every request but /version, /healthz, /livez and /readyz (what the
    // apiserver's system:public-info-viewer role lets anyone read) must carry
    // "Authorization: Bearer <token>"; others get 401 Unauthorized as from the apiserver.
    std::string bearer_token;
    // When set, HTTPS with this certificate and key (make_self_signed_identity).
    std::optional<TlsIdentity> tls;
  };

  explicit HttpServer(ApiServer& api) : HttpServer(api, Options{}) {}
  HttpServer(ApiServer& api, Options options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Binds (port 0: an ephemeral port) and starts serving on a background thread. Throws
  // std::runtime_error when the address cannot be bound.
  int start(const std::string& address, int port);
  // Stops accepting and closes the connections; returns once the listener has ended.
  void stop();
  // stop(), but waits at most `deadline`: a slow body (or, with TLS, a keep-alive connection)
  // can hold a worker for up to kReadTimeoutSeconds (kKeepAliveSeconds). Returns false when the
  // connections were still open at the deadline; the stop then goes on in the background and
  // this object (and the ApiServer) must stay alive until the process ends.
  bool stop_within(std::chrono::milliseconds deadline);
  // Whether a connection waits to be accepted, or some connection to this server holds bytes
  // one of its ends has not read yet: a request the server has yet to take, or a response or
  // watch events a client on this host has yet to read (cosim with --scheduler-command moves
  // time only when none does). A few exact socket lookups per open connection (TcpQueueProbe).
  bool bytes_unread();

 private:
  // Threads made on demand up to a maximum; beyond it, tasks wait in FIFO order. A thread
  // beyond the first `idle_threads` that has waited `idle_timeout` for a task ends.
  class WorkerPool {
   public:
    // Starts the idle threads at once: the pool's size at rest, before and after any load.
    WorkerPool(std::size_t max_threads, std::size_t idle_threads, std::chrono::milliseconds idle_timeout);
    // `first`: ahead of every task queued without it (FIFO among each kind).
    void enqueue(std::function<void()> task, bool first = false);
    void shutdown();  // runs the queued tasks, then joins every thread
    std::size_t threads() const;

   private:
    void start_thread();  // with mutex_ held
    void work(std::list<std::thread>::iterator self);
    void join_finished(std::unique_lock<std::mutex>& lock);
    const std::size_t max_threads_;
    const std::size_t idle_threads_;
    const std::chrono::milliseconds idle_timeout_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    std::deque<std::function<void()>> first_tasks_;
    std::list<std::thread> threads_;   // running
    std::list<std::thread> finished_;  // ended (or ending) on their own, to be joined
    std::size_t idle_ = 0;
    bool stopping_ = false;
  };

  class PlainServer;
  // Before the body is read (httplib's pre-routing handler): the bearer token, the body's
  // declared size and the max-in-flight filter; true when `res` holds the refusal.
  bool refuse_before_body(const httplib::Request& req, httplib::Response& res);
  // Its first two checks, shared with the gate (gate_refuse): the token, the declared size.
  struct Refusal {
    int code;
    const char* reason;
    std::string message;
  };
  std::optional<Refusal> refusal_before_seat(std::string_view path, std::string_view authorization,
                                             const std::optional<std::string_view>& length) const;
  static Refusal too_many_requests();
  // One request that passed them: the ApiServer (a watch's events streamed by chunks).
  void serve_request(const httplib::Request& req, httplib::Response& res);
  // The gate (a thread): accepts connections and hands each to a worker once its request
  // header is complete; the steps of its loop.
  struct GateConnections;
  void run_gate();
  bool gate_woken(GateConnections& gate);  // false: stopping
  void gate_accept(GateConnections& gate);
  void gate_peek(GateConnections& gate, int fd, std::vector<char>& peek);
  // Plain HTTP: refuses a complete request header the gate can refuse on its own (no or a
  // wrong token, a declared body over the limit, max-in-flight full), so that such a client
  // never takes a worker; true when it did (the refusal is written by gate_write_refusals, then
  // the connection lingers and closes) or when it handed the connection on with a seat.
  bool gate_refuse(GateConnections& gate, int fd, std::string_view header);
  // Writes up to `budget` of the refusals gate_refuse decided, oldest first.
  void gate_write_refusals(GateConnections& gate, std::size_t budget);
  static const std::string& refusal_text(int code);  // the whole response of a 401, 413 or 429
  // Hands a connection whose request header is complete to a worker, with the in-flight seat
  // the gate took for that request (or none); `first`: ahead of the queued others.
  void hand_to_worker(GateConnections& gate, int fd, std::atomic<int>* seat, bool first = false);
  void serve_connection(int fd);
  void return_to_gate(int fd, bool lingering = false);
  void linger_in_gate(int fd);  // half-closes, then the gate closes it after kLingerTimeout
  // Ends the in-flight count of the request this worker thread took (plain HTTP), once.
  void answered();

  ApiServer& api_;
  Options options_;
  std::unique_ptr<httplib::Server> server_;
  PlainServer* plain_ = nullptr;  // server_ when it serves plain HTTP
  std::shared_ptr<WorkerPool> pool_;
  std::thread listener_;  // httplib's own accept loop, on a loopback socket (see start())
  std::thread gate_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd that wakes the gate: stopping, or connections returned
  std::atomic<bool> stopping_{false};
  struct Returned {
    int fd;
    bool lingering;
  };
  std::mutex returned_mutex_;
  std::vector<Returned> returned_;  // keep-alive (or refused, lingering) connections back from a worker
  std::vector<char> peek_;          // the gate's buffer
  std::mutex taken_mutex_;
  std::set<std::thread::id> taken_;  // workers answering a request counted by ApiServer::request_taken
  // An accepted connection: its addresses, and how many bytes serve had written into it when
  // its client was last seen with none of them unread (bytes_unread asks the kernel about the
  // client's end only once serve has written more since).
  struct Endpoint {
    TcpEndpoints addresses;
    std::optional<std::uint64_t> client_read_all_at;
  };
  // By descriptor (an entry outlives its connection until the descriptor is reused, or a look
  // finds neither end of it).
  std::mutex endpoints_mutex_;
  std::map<int, Endpoint> endpoints_;
  TcpQueueProbe probe_;  // under endpoints_mutex_
  std::atomic<int> read_only_in_flight_{0};
  std::atomic<int> mutating_in_flight_{0};
};

}  // namespace kubesim::api
