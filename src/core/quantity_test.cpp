// Kubernetes quantity parsing, checked against k8s.io/apimachinery/pkg/api/resource
// (quantity.go ParseQuantity/parseQuantityString, suffix.go) and its quantity_test.go
// (TestQuantityParse: valid table and the `invalid` list). Expected values are worked out
// by hand from those definitions: Value() = ceil(v), MilliValue() = ceil(v * 1000).
#include "core/quantity.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/resources.hpp"
#include "testing/param_name.hpp"

namespace kubesim {
namespace {

constexpr const char* kFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr const char* kSuffixError = "unable to parse quantity's suffix";

struct ValidCase {
  const char* text;
  std::int64_t value;  // Value(): ceil
  std::int64_t milli;  // MilliValue(): ceil(x * 1000)
};

class QuantityValid : public ::testing::TestWithParam<ValidCase> {};

TEST_P(QuantityValid, ValueAndMilliValue) {
  const ValidCase& c = GetParam();
  std::string error;
  auto q = Quantity::parse(c.text, &error);
  ASSERT_TRUE(q.has_value()) << c.text << ": " << error;
  EXPECT_EQ(q->value(), c.value) << c.text;
  EXPECT_EQ(q->milli_value(), c.milli) << c.text;
  EXPECT_FALSE(q->negative()) << c.text;
}

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

INSTANTIATE_TEST_SUITE_P(
    Apimachinery, QuantityValid,
    ::testing::Values(
        ValidCase{"0", 0, 0}, ValidCase{"1", 1, 1000},
        ValidCase{"1.5", 2, 1500},            // 1500m; Value() rounds up
        ValidCase{"500m", 1, 500},            // 0.5 -> Value() 1
        ValidCase{"3m", 1, 3},                // decQuantity(3, -3)
        ValidCase{"0.1m", 1, 1},              // 0.0001 -> MilliValue rounds 0.1 up to 1
        ValidCase{"4Gi", 4 * kGi, 4 * kGi * 1000},
        ValidCase{"8G", 8'000'000'000, 8'000'000'000'000},
        ValidCase{"100Mi", 104'857'600, 104'857'600'000},
        ValidCase{"1Ki", 1024, 1'024'000}, ValidCase{"8Ki", 8192, 8'192'000},
        ValidCase{"1k", 1000, 1'000'000}, ValidCase{"50k", 50'000, 50'000'000},
        ValidCase{"1e3", 1000, 1'000'000},    // decimal exponent
        ValidCase{"1E3", 1000, 1'000'000},    // "E3": E followed by digits is an exponent, not exa
        ValidCase{"1E", 1'000'000'000'000'000'000, kMax},  // exa; milli saturates (maxAllowed)
        ValidCase{"1E-3", 1, 1},              // 0.001
        ValidCase{"1.3E+6", 1'300'000, 1'300'000'000},
        ValidCase{"1.2e3", 1200, 1'200'000},
        ValidCase{"0.5e-1", 1, 50},           // 0.05
        ValidCase{"+1", 1, 1000}, ValidCase{".5", 1, 500}, ValidCase{"5.", 5, 5000},
        ValidCase{".001", 1, 1},              // "Things written by trolls"
        ValidCase{"1.", 1, 1000}, ValidCase{"1.G", 1'000'000'000, 1'000'000'000'000},
        ValidCase{"100.035k", 100'035, 100'035'000},
        ValidCase{"0.0005k", 1, 500},         // decQuantity(5, -1)
        ValidCase{"0.5Mi", 524'288, 524'288'000},
        ValidCase{"100.035Ki", 102'436, 102'435'840},  // 102435.84 -> ceil
        ValidCase{"3.001n", 1, 1},
        ValidCase{"0.000000000001Ki", 1, 1},  // tiny positive values round up to the unit
        ValidCase{"007", 7, 7000},            // leading zeros stripped
        ValidCase{"9Ei", kMax, kMax},         // saturates at maxAllowed = 2^63-1
        ValidCase{"9223372036854775807Ki", kMax, kMax},
        ValidCase{".", 0, 0},                 // parseQuantityString(".") -> num "0": zero
        // "e3": parseQuantityString sets num="0" when no digits precede the suffix and
        // interpret("e3") is a valid decimal exponent, so ParseQuantity returns 0, no error.
        ValidCase{"e3", 0, 0}),
    testing::TextCaseName{});

struct InvalidCase {
  const char* text;
  const char* error;
};

class QuantityInvalid : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(QuantityInvalid, Rejected) {
  const InvalidCase& c = GetParam();
  std::string error;
  auto q = Quantity::parse(c.text, &error);
  EXPECT_FALSE(q.has_value()) << '"' << c.text << '"';
  EXPECT_EQ(error, c.error) << '"' << c.text << '"';
}

INSTANTIATE_TEST_SUITE_P(
    Apimachinery, QuantityInvalid,
    ::testing::Values(
        // quantity_test.go `invalid` list.
        InvalidCase{"1.1.M", kFormatError}, InvalidCase{"1+1.0M", kFormatError}, InvalidCase{"0.1mi", kSuffixError},
        InvalidCase{"0.1am", kFormatError}, InvalidCase{"aoeu", kFormatError}, InvalidCase{".5i", kSuffixError},
        InvalidCase{"1i", kSuffixError}, InvalidCase{"-3.01i", kSuffixError}, InvalidCase{"-3.01e-", kSuffixError},
        InvalidCase{"1e4294967297", kSuffixError}, InvalidCase{" 1", kFormatError}, InvalidCase{"1 ", kFormatError},
        // More, traced through parseQuantityString + interpret by hand.
        InvalidCase{"1K", kSuffixError},     // K is in the regexp's class but no suffix
        InvalidCase{"1.2.3", kFormatError},  // second '.' is neither suffix nor exponent digit
        InvalidCase{"abc", kFormatError},
        InvalidCase{"1Gi1", kSuffixError},   // suffix "Gi1" matches the grammar, not a suffix
        InvalidCase{"--1", kSuffixError},    // sign, then suffix "-1" (sign + digits): no such suffix
        InvalidCase{"1 Gi", kFormatError},
        InvalidCase{"1e", kSuffixError},     // lone "e" is not a suffix
        InvalidCase{"1E+", kSuffixError}),
    testing::TextCaseName{});

TEST(Quantity, EmptyIsRejected) {
  std::string error;
  EXPECT_FALSE(Quantity::parse("", &error).has_value());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(Quantity::parse("", nullptr).has_value());  // error pointer is optional
}

// quantity.go ParseQuantity: `if len(str) == 0 { return Quantity{}, ErrFormatWrong }`, and
// quantity.hpp promises upstream's reason.
TEST(Quantity, EmptyGivesUpstreamFormatError) {
  std::string error;
  EXPECT_FALSE(Quantity::parse("", &error).has_value());
  EXPECT_EQ(error, kFormatError);
}

TEST(Quantity, Negative) {
  std::string error;
  auto q = Quantity::parse("-1.5", &error);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->negative());
  EXPECT_EQ(q->milli_value(), -1500);
  auto zero = Quantity::parse("-0", &error);
  ASSERT_TRUE(zero);
  EXPECT_FALSE(zero->negative());  // negative zero is zero
  EXPECT_TRUE(zero->is_zero());
  auto z2 = Quantity::parse("0.000", &error);
  ASSERT_TRUE(z2);
  EXPECT_TRUE(z2->is_zero());
}

TEST(Quantity, ParseResourceQuantityOk) {
  Quantity q = parse_resource_quantity("250m", "pods.yaml", 3, "cpu");
  EXPECT_EQ(q.milli_value(), 250);
}

TEST(Quantity, ParseResourceQuantityInvalidNamesFileLine) {
  try {
    parse_resource_quantity("1K", "cluster.yaml", 12, "memory");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "cluster.yaml");
    EXPECT_EQ(e.line(), 12);
    EXPECT_EQ(std::string(e.what()),
              "cluster.yaml:12: invalid quantity \"1K\" for memory: unable to parse quantity's suffix");
  }
}

TEST(Quantity, ParseResourceQuantityNegativeNamesFileLine) {
  try {
    parse_resource_quantity("-2", "cluster.yaml", 4, "cpu");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(std::string(e.what()), "cluster.yaml:4: cpu must not be negative, got \"-2\"");
  }
}

TEST(Quantity, ParseResourceQuantityNoLine) {
  try {
    parse_resource_quantity("x", "cli", 0, "cpu");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), std::string("cli: invalid quantity \"x\" for cpu: ") + kFormatError);
  }
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

// Hardening (issue 16): amounts kubesim cannot hold as int64 milli-units are refused with the
// file and line instead of saturating (a saturated quota once made a sum wrap).
TEST(Quantity, OutOfRangeAmountsAreRefused) {
  for (const char* text : {"99999999999999999999999Ei", "1e308", "123456789012G", "9223372036854775807"}) {
    auto q = Quantity::parse(text, nullptr);
    ASSERT_TRUE(q) << text;
    EXPECT_TRUE(q->out_of_range()) << text;
    EXPECT_THROW(parse_resource_quantity(text, "f.yaml", 3, "cpu"), InputError) << text;
  }
  for (const char* text : {"9223372036854775", "8Pi", "1Ei", "9223372036854775806"}) {
    auto q = Quantity::parse(text, nullptr);
    ASSERT_TRUE(q) << text;
    EXPECT_FALSE(q->out_of_range()) << text;
  }
}

// Found by fuzz/quantity_fuzz: a huge negative amount saturated to +INT64_MAX.
TEST(Quantity, HugeNegativeAmountsSaturateNegative) {
  auto q = Quantity::parse("-9Ei", nullptr);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->negative());
  EXPECT_EQ(q->milli_value(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(Quantity::parse("9Ei", nullptr)->milli_value(), std::numeric_limits<std::int64_t>::max());
}

TEST(Resources, SumsSaturateInsteadOfWrapping) {
  Resources a, b;
  a[kMemory] = std::numeric_limits<std::int64_t>::max() - 1;
  b[kMemory] = 10;
  a += b;
  EXPECT_EQ(a[kMemory], std::numeric_limits<std::int64_t>::max());
  Resources c;
  c[kCpu] = std::numeric_limits<std::int64_t>::min() + 1;
  c -= b;  // b's cpu is 0
  EXPECT_EQ(c[kCpu], std::numeric_limits<std::int64_t>::min() + 1);
  b[kCpu] = 5;
  c -= b;
  EXPECT_EQ(c[kCpu], std::numeric_limits<std::int64_t>::min());
}

}  // namespace
}  // namespace kubesim
