// The payload of a component's own timer (a scheduler model's SchedulerEvent::timer, a
// controller's ControllerHost::post_timer): a value of the component's own type that only it
// reads back, so a timer packs nothing into id fields and the engine, which orders and
// delivers the event, never interprets it.
//
// Stored inline in the event rather than in a per-component table of pending timers:
// posting stays allocation-free and needs no bookkeeping of fired or superseded timers. The
// type must be trivially copyable (it is copied as bytes, so its padding and alignment do not
// matter: the room is byte-aligned and does not widen the events that carry it) and fit
// kBytes. The contract: a component reads only its own timers, and posts one payload type.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <type_traits>

namespace kubesim {

class TimerPayload {
 public:
  static constexpr std::size_t kBytes = 16;

  template <class T>
  static TimerPayload of(const T& value) {
    check<T>();
    TimerPayload p;
    const auto bytes = std::bit_cast<std::array<std::byte, sizeof(T)>>(value);
    std::copy(bytes.begin(), bytes.end(), p.bytes_.begin());
    return p;
  }
  template <class T>
  T as() const {
    check<T>();
    std::array<std::byte, sizeof(T)> bytes;
    std::copy_n(bytes_.begin(), sizeof(T), bytes.begin());
    return std::bit_cast<T>(bytes);
  }

 private:
  template <class T>
  static constexpr void check() {
    static_assert(std::is_trivially_copyable_v<T>, "a timer payload is copied as bytes");
    static_assert(sizeof(T) <= kBytes, "a timer payload must fit TimerPayload::kBytes");
  }

  std::array<std::byte, kBytes> bytes_{};
};
static_assert(sizeof(TimerPayload) == TimerPayload::kBytes && alignof(TimerPayload) == 1);

}  // namespace kubesim
