// The receive queues of given TCP connections, looked up one socket at a time through the
// kernel's sock_diag netlink interface (linux/inet_diag.h: a request without NLM_F_DUMP finds
// one socket by its addresses, inet_diag_find_one_icsk, a hash lookup).
//
// Why not /proc/net/tcp (or a sock_diag dump, which `ss` uses): both walk every bucket of the
// kernel's TCP hash tables, which took 12-14 ms per read on the 2-core test machine, and cosim
// with --scheduler-command asks twice per step of the scheduler's clock (thousands of steps
// per run). One exact lookup takes about 17 us there.
//
// Not thread-safe (one netlink socket, one request at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <sys/socket.h>

namespace kubesim::api {

// One TCP connection as one of its ends sees it.
struct TcpEndpoints {
  sockaddr_storage local{};
  sockaddr_storage remote{};
};

class TcpQueueProbe {
 public:
  TcpQueueProbe();
  ~TcpQueueProbe();
  TcpQueueProbe(const TcpQueueProbe&) = delete;
  TcpQueueProbe& operator=(const TcpQueueProbe&) = delete;

  // Bytes received and not yet read by the socket whose local and remote addresses are
  // `e`'s (IPv4 or IPv6, in this network namespace); nullopt when there is no such socket
  // (closed, or the other end is on another host) or the kernel cannot be asked. As the
  // kernel's lookup (inet_lookup) does, a local address and port with no such connection but
  // a listening socket find that listener: its accept queue's length is reported then. The
  // peer's end of the stream (its FIN) is not counted.
  std::optional<std::uint32_t> unread_bytes(const TcpEndpoints& e);

 private:
  int fd_ = -1;
  std::uint32_t sequence_ = 0;
};

// A connection's end as its owner sees it through its descriptor (no netlink): the bytes in
// its receive queue not yet read (SIOCINQ; like unread_bytes, without the peer's FIN: tcp_inq
// in net/ipv4/tcp.c) and the bytes written into it so far (acknowledged plus still queued:
// TCP_INFO tcpi_bytes_acked + SIOCOUTQ, i.e. write_seq - isn). nullopt when `fd` is no
// connected TCP socket. Defined in tcp_own_end.cpp: the kernel's tcp_info (linux/tcp.h) and
// glibc's (netinet/tcp.h, without tcpi_bytes_acked) cannot share a file.
struct OwnEnd {
  std::uint32_t unread = 0;
  std::uint64_t written = 0;
};
std::optional<OwnEnd> own_end(int fd);

// The same connection seen from its other end.
inline TcpEndpoints reversed(const TcpEndpoints& e) { return {e.remote, e.local}; }

}  // namespace kubesim::api
