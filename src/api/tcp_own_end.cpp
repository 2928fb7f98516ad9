// own_end (tcp_queue_probe.hpp), alone in its file: it needs the kernel's struct tcp_info.
#include <cstddef>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "api/tcp_queue_probe.hpp"

namespace kubesim::api {

std::optional<OwnEnd> own_end(int fd) {
  int unread = 0, queued = 0;
  tcp_info info{};
  socklen_t size = sizeof info;
  if (::ioctl(fd, SIOCINQ, &unread) != 0 || ::ioctl(fd, SIOCOUTQ, &queued) != 0 ||
      ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0 ||
      size < offsetof(tcp_info, tcpi_bytes_acked) + sizeof info.tcpi_bytes_acked || unread < 0 || queued < 0)
    return std::nullopt;
  return OwnEnd{static_cast<std::uint32_t>(unread), info.tcpi_bytes_acked + static_cast<std::uint64_t>(queued)};
}

}  // namespace kubesim::api
