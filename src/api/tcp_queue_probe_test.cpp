#include "api/tcp_queue_probe.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <unistd.h>

namespace kubesim::api {
namespace {

// A loopback connection: the listener's accepted end and the client's end.
struct Loopback {
  int listener = -1, client = -1, server = -1;
  Loopback() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof a;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &size) != 0)
      return;
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    server = ::accept(listener, nullptr, nullptr);
  }
  ~Loopback() {
    for (int fd : {listener, client, server})
      if (fd >= 0) ::close(fd);
  }
  TcpEndpoints server_end() const {
    TcpEndpoints e;
    socklen_t a = sizeof e.local, b = sizeof e.remote;
    ::getsockname(server, reinterpret_cast<sockaddr*>(&e.local), &a);
    ::getpeername(server, reinterpret_cast<sockaddr*>(&e.remote), &b);
    return e;
  }
};

TEST(TcpQueueProbe, ReportsTheUnreadBytesOfEitherEnd) {
  Loopback c;
  ASSERT_GE(c.server, 0);
  TcpQueueProbe probe;
  const TcpEndpoints server = c.server_end();
  ASSERT_TRUE(probe.unread_bytes(server).has_value()) << "sock_diag netlink unavailable";
  EXPECT_EQ(probe.unread_bytes(server), 0u);
  EXPECT_EQ(probe.unread_bytes(reversed(server)), 0u);
  // A response the client has not read: queued at the client's end (loopback delivers at once).
  const char text[] = "0123456789";
  ASSERT_EQ(::write(c.server, text, 10), 10);
  EXPECT_EQ(probe.unread_bytes(reversed(server)), 10u);
  EXPECT_EQ(probe.unread_bytes(server), 0u);
  char buffer[16];
  ASSERT_EQ(::read(c.client, buffer, sizeof buffer), 10);
  EXPECT_EQ(probe.unread_bytes(reversed(server)), 0u);
  // A request the server has not taken.
  ASSERT_EQ(::write(c.client, text, 4), 4);
  EXPECT_EQ(probe.unread_bytes(server), 4u);
}

TEST(TcpQueueProbe, AClientsEndIsNoUnreadByte) {
  // The kernel counts the FIN in the receive queue's length (rcv_nxt - copied_seq) until the
  // reader sees the end; a client that closed while its request waits in serve (cosim's
  // gate) must not look like a request yet to be read, or cosim would wait for it forever.
  Loopback c;
  ASSERT_GE(c.server, 0);
  TcpQueueProbe probe;
  const TcpEndpoints server = c.server_end();
  const char text[] = "0123";
  ASSERT_EQ(::write(c.client, text, 4), 4);
  ASSERT_EQ(::shutdown(c.client, SHUT_WR), 0);
  EXPECT_EQ(probe.unread_bytes(server), 4u);
  char buffer[8];
  ASSERT_EQ(::read(c.server, buffer, 4), 4);
  EXPECT_EQ(probe.unread_bytes(server), 0u);
  ASSERT_EQ(::read(c.server, buffer, sizeof buffer), 0);
  EXPECT_EQ(probe.unread_bytes(server), 0u);
}

TEST(TcpQueueProbe, NoSocketForUnknownAddresses) {
  Loopback c;
  ASSERT_GE(c.server, 0);
  TcpQueueProbe probe;
  // The client's end, but connected to port 1: no such socket (and no listener on the
  // client's port for the lookup to fall back to).
  TcpEndpoints e = reversed(c.server_end());
  reinterpret_cast<sockaddr_in&>(e.remote).sin_port = htons(1);
  EXPECT_FALSE(probe.unread_bytes(e).has_value());
  TcpEndpoints mixed = c.server_end();
  mixed.remote.ss_family = AF_INET6;  // families disagree
  EXPECT_FALSE(probe.unread_bytes(mixed).has_value());
}

TEST(TcpQueueProbe, OwnEndCountsUnreadAndWrittenBytes) {
  Loopback c;
  ASSERT_GE(c.server, 0);
  ASSERT_TRUE(own_end(c.server).has_value());
  EXPECT_EQ(own_end(c.server)->unread, 0u);
  EXPECT_EQ(own_end(c.server)->written, 0u);
  const char text[] = "0123456789";
  ASSERT_EQ(::write(c.server, text, 10), 10);
  ASSERT_EQ(::write(c.client, text, 4), 4);
  EXPECT_EQ(own_end(c.server)->written, 10u);  // read by the client or not
  EXPECT_EQ(own_end(c.server)->unread, 4u);
  char buffer[16];
  ASSERT_EQ(::read(c.server, buffer, sizeof buffer), 4);
  EXPECT_EQ(own_end(c.server)->unread, 0u);
  ASSERT_EQ(::shutdown(c.client, SHUT_WR), 0);  // the client's FIN is no byte to read
  EXPECT_EQ(own_end(c.server)->unread, 0u);
  EXPECT_FALSE(own_end(c.listener).has_value());  // a listener has no receive queue
  EXPECT_FALSE(own_end(-1).has_value());
}

}  // namespace
}  // namespace kubesim::api
