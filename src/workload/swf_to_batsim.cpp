#include "workload/swf_to_batsim.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <vector>

#include "core/error.hpp"

namespace kubesim {
namespace {

// A Python number as the script holds it: most values are floats, but some are ints (see
// PyNumber uses below), and json.dump writes 0 and 0.0 differently.
struct PyNumber {
  double value = 0;
  bool is_int = false;
};

// Python's float floor division, transcribed from CPython Objects/floatobject.c (_float_div_mod)
// so that run_time // job_grain rounds exactly as the script does.
double python_floordiv(double vx, double wx) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return floordiv;
}

// json.dumps(ensure_ascii=True) string escaping (Lib/json/encoder.py py_encode_basestring_ascii):
// everything outside ' '..'~' is escaped, as \uXXXX (UTF-16, lowercase hex) unless it has a
// short form. Bytes that are not valid UTF-8 become lone surrogates U+DC80..U+DCFF, which is
// what Python's surrogateescape makes of them in sys.argv.
std::string python_json_string(const std::string& s) {
  std::string out = "\"";
  auto u16 = [&out](unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", v & 0xFFFFu);
    out += buf;
  };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c <= 0x7e) {
      if (c == '"')
        out += "\\\"";
      else if (c == '\\')
        out += "\\\\";
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x80) {
      u16(c);
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence (rejecting overlong forms and surrogates like Python's decoder).
    int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5) len = 0;
    std::uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = len > 0 && i + static_cast<std::size_t>(len) <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (ok &&
        ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
      ok = false;
    if (!ok) {
      u16(0xDC00 + c);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      u16(0xD800 + (cp >> 10));
      u16(0xDC00 + (cp & 0x3FF));
    } else {
      u16(cp);
    }
    i += static_cast<std::size_t>(len);
  }
  out += '"';
  return out;
}

// json.dump's float.__repr__ use, with its allow_nan spellings for the non-finite values.
std::string python_json_number(const PyNumber& n) {
  if (n.is_int) return std::to_string(static_cast<std::int64_t>(n.value));
  if (std::isnan(n.value)) return "NaN";
  if (std::isinf(n.value)) return n.value > 0 ? "Infinity" : "-Infinity";
  return python_float_repr(n.value);
}

struct ConvertedJob {
  std::int64_t id;
  std::int64_t nb_res;
  PyNumber submit;
  double walltime;
  std::int64_t profile;
};

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-trip digits in scientific form, e.g. "-1.4519e+03", then laid out with
  // CPython's float_repr_style 'r' rules (Python/pystrtod.c format_float_short): exponent form
  // iff decpt <= -4 or decpt > 16, where value = 0.DIGITS * 10^decpt.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  std::string out;
  if (s.front() == '-') {
    out += '-';
    s.remove_prefix(1);
  }
  const std::size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits += c;
  const int exp10 = std::stoi(std::string(s.substr(e + 1)));
  const int decpt = exp10 + 1;
  const int nd = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (nd > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += ebuf;
  } else if (decpt <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
  } else if (decpt >= nd) {
    out += digits + std::string(static_cast<std::size_t>(decpt - nd), '0') + ".0";
  } else {
    out += digits.substr(0, static_cast<std::size_t>(decpt)) + "." + digits.substr(static_cast<std::size_t>(decpt));
  }
  return out;
}

std::string swf_to_batsim_json(const SwfTrace& trace, const SwfConvertOptions& options, SkippedJobs* skipped) {
  if (!(options.job_grain > 0)) throw InputError("", 0, "job grain must be positive");
  if (options.platform_size && *options.platform_size < 1)
    throw InputError("", 0, "platform size must be strictly positive");

  std::vector<ConvertedJob> jobs;
  std::map<std::string, std::int64_t> profiles;  // str(profile) -> profile; sorted like sort_keys
  PyNumber min_submit{std::numeric_limits<double>::infinity(), false};
  std::int64_t largest = 0;
  std::int64_t next_id = 0;
  auto skip = [&](const char* reason) {
    if (skipped) skipped->add(reason);
  };
  for (const SwfRecord& r : trace.records) {
    // nb_res = int(float(field 5)), then the -jsf expression '<factor>*nb_res'.
    const double scaled = options.job_size_factor * static_cast<double>(r.allocated_processors);
    if (!(std::fabs(scaled) < 9e18))
      throw InputError(trace.source, r.line, "field 5 times job size factor is out of range");
    const std::int64_t nb_res = static_cast<std::int64_t>(scaled);  // truncates like int()
    const double run_time = r.run_time;
    // submit_time = max(0, float(field 2)): Python's max returns its first argument, the int 0,
    // unless the float is strictly greater, so a 0 or negative submit time becomes the int 0.
    const PyNumber submit = r.submit_time > 0 ? PyNumber{r.submit_time, false} : PyNumber{0, true};
    double walltime = std::max(options.job_walltime_factor * run_time, r.requested_time);
    if (options.given_walltime_only) walltime = r.requested_time;

    if (!(run_time > 0)) {
      skip("run time <= 0");
      continue;
    }
    if (nb_res <= 0) {
      skip("no processors (field 5 times job size factor <= 0)");
      continue;
    }
    if (!(walltime > run_time)) {
      skip("walltime <= run time");
      continue;
    }
    // The script's "submit_time >= 0" test cannot fail after the clamp above.

    const double profile = std::trunc((python_floordiv(run_time, options.job_grain) + 1) * options.job_grain);
    if (!(std::fabs(profile) < 9e18)) throw InputError(trace.source, r.line, "field 4 (run time) is out of range");
    const auto profile_int = static_cast<std::int64_t>(profile);
    profiles.emplace(std::to_string(profile_int), profile_int);
    // min(minimum, submit): Python keeps the current minimum unless the new value is smaller.
    if (submit.value < min_submit.value) min_submit = submit;
    largest = std::max(largest, nb_res);
    jobs.push_back({next_id++, nb_res, submit, walltime, profile_int});
  }
  if (jobs.empty()) throw InputError(trace.source, 0, "no SWF record can be converted to a Batsim job");

  // json.dump layout: compact separators (", ", ": ") without indent; with indent N, "," then a
  // newline and N spaces per level.
  const bool pretty = options.indent >= 0;
  const std::string sep = pretty ? "," : ", ";
  auto nl = [&](int level) {
    return pretty ? "\n" + std::string(static_cast<std::size_t>(options.indent) * static_cast<std::size_t>(level), ' ')
                  : std::string();
  };

  std::string out;
  out.reserve(jobs.size() * 90 + profiles.size() * 50 + 256);
  out += "{" + nl(1) + "\"command\": " + python_json_string(options.command_line);
  out += sep + nl(1) + "\"description\": \"this workload had been automatically generated\"";
  out += sep + nl(1) + "\"jobs\": [";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ConvertedJob& j = jobs[i];
    // subtime = submit_time - minimum: an int only when both operands are ints.
    const PyNumber subtime{j.submit.value - min_submit.value, j.submit.is_int && min_submit.is_int};
    if (i > 0) out += sep;
    out += nl(2) + "{" + nl(3) + "\"id\": " + std::to_string(j.id);
    out += sep + nl(3) + "\"profile\": \"" + std::to_string(j.profile) + "\"";
    out += sep + nl(3) + "\"res\": " + std::to_string(j.nb_res);
    out += sep + nl(3) + "\"subtime\": " + python_json_number(subtime);
    out += sep + nl(3) + "\"walltime\": " + python_json_number(PyNumber{j.walltime, false});
    out += nl(2) + "}";
  }
  out += nl(1) + "]";
  out += sep + nl(1) + "\"nb_res\": " + std::to_string(options.platform_size.value_or(largest));
  out += sep + nl(1) + "\"profiles\": {";
  bool first = true;
  for (const auto& [name, delay] : profiles) {
    if (!first) out += sep;
    first = false;
    out += nl(2) + "\"" + name + "\": {" + nl(3) + "\"delay\": " + std::to_string(delay);
    out += sep + nl(3) + "\"type\": \"delay\"" + nl(2) + "}";
  }
  out += nl(1) + "}";
  out += sep + nl(1) + "\"version\": 0";
  out += nl(0) + "}";
  return out;
}

}  // namespace kubesim
