#include "api/tcp_queue_probe.hpp"

#include <cstring>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

namespace kubesim::api {

namespace {

// Fills the port and address of a sock_diag id field from a socket address; false for a
// family other than IPv4/IPv6.
bool fill(const sockaddr_storage& a, __be16& port, __be32 (&address)[4]) {
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    port = in.sin_port;
    std::memcpy(address, &in.sin_addr, sizeof in.sin_addr);
    return true;
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    port = in6.sin6_port;
    std::memcpy(address, &in6.sin6_addr, sizeof in6.sin6_addr);
    return true;
  }
  return false;
}

}  // namespace

TcpQueueProbe::TcpQueueProbe() : fd_(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {}

TcpQueueProbe::~TcpQueueProbe() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::uint32_t> TcpQueueProbe::unread_bytes(const TcpEndpoints& e) {
  if (fd_ < 0 || e.local.ss_family != e.remote.ss_family) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;  // no NLM_F_DUMP: the one socket with this id
  message.header.nlmsg_seq = ++sequence_;
  message.request.sdiag_family = static_cast<std::uint8_t>(e.local.ss_family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0U;
  inet_diag_sockid& id = message.request.id;
  if (!fill(e.local, id.idiag_sport, id.idiag_src) || !fill(e.remote, id.idiag_dport, id.idiag_dst)) return std::nullopt;
  id.idiag_cookie[0] = id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (::send(fd_, &message, sizeof message, 0) != static_cast<ssize_t>(sizeof message)) return std::nullopt;
  // The answer: one inet_diag_msg, or an NLMSG_ERROR (ENOENT: no such socket).
  alignas(nlmsghdr) char reply[1024];
  for (;;) {
    const ssize_t got = ::recv(fd_, reply, sizeof reply, 0);
    if (got < static_cast<ssize_t>(sizeof(nlmsghdr))) return std::nullopt;
    nlmsghdr header;
    std::memcpy(&header, reply, sizeof header);
    if (header.nlmsg_seq != sequence_) continue;  // a late answer to an earlier request
    if (header.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        static_cast<std::size_t>(got) < NLMSG_LENGTH(sizeof(inet_diag_msg)))
      return std::nullopt;
    inet_diag_msg diag;
    std::memcpy(&diag, reply + NLMSG_HDRLEN, sizeof diag);
    // Once the peer's FIN is in (CLOSE_WAIT, and LAST_ACK or CLOSING after our own close),
    // the kernel counts it as one more byte (tcp_diag_get_info: rcv_nxt - copied_seq) until
    // the reader has seen the end: a closed connection is no byte to read.
    const bool fin_in = diag.idiag_state == TCP_CLOSE_WAIT || diag.idiag_state == TCP_LAST_ACK ||
                        diag.idiag_state == TCP_CLOSING;
    return fin_in && diag.idiag_rqueue > 0 ? diag.idiag_rqueue - 1 : diag.idiag_rqueue;
  }
}

}  // namespace kubesim::api
