// Records: plain structs that list their fields once, so that every layer (bindings,
// Python stubs, pickling, JSON) converts them generically instead of re-typing them.
//
//   struct Point {
//     double x_m = 0;
//     std::int64_t n = 0;
//     static constexpr auto fields() {
//       return std::make_tuple(COSTMETRICS_FIELD(Point, x_m, "position (m)"),
//                              COSTMETRICS_FIELD(Point, n, "count"));
//     }
//     void validate() const;  // optional: throws std::invalid_argument naming the field
//   };
//
// The core stays free of Python: this header only describes the fields.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace costmetrics {

template <typename Record, typename Value>
struct Field {
  using record_type = Record;
  using value_type = Value;
  const char* name;
  Value Record::*member;
  const char* doc;
};

template <typename Record, typename Value>
constexpr Field<Record, Value> make_field(const char* name, Value Record::*member,
                                          const char* doc) {
  return Field<Record, Value>{name, member, doc};
}

// The field's name is spelled once, as the member's name.
#define COSTMETRICS_FIELD(Record, member, doc) \
  ::costmetrics::make_field(#member, &Record::member, doc)

// Names of an enum's values, for enums used as record fields: bindings carry such a field as
// one of these strings. Specialize next to the enum:
//
//   template <> struct enum_names<Fusion> {
//     static constexpr std::array<std::pair<Fusion, const char*>, 3> values{
//         {{Fusion::None, "none"}, {Fusion::Left, "left"}, {Fusion::Right, "right"}}};
//   };
template <typename Enum>
struct enum_names;

template <typename Enum, typename = void>
struct has_enum_names : std::false_type {};
template <typename Enum>
struct has_enum_names<Enum, std::void_t<decltype(enum_names<Enum>::values)>> : std::true_type {};

// The name of `value`, or "" when it has none.
template <typename Enum>
const char* enum_name(Enum value) {
  for (const auto& entry : enum_names<Enum>::values) {
    if (entry.first == value) return entry.second;
  }
  return "";
}

// Whether T is a record (declares fields()).
template <typename T, typename = void>
struct is_record : std::false_type {};
template <typename T>
struct is_record<T, std::void_t<decltype(T::fields())>> : std::true_type {};

// Calls f(field) for each field of Record, in declaration order.
template <typename Record, typename F>
void for_each_field(F&& f) {
  std::apply([&](auto... fs) { (f(fs), ...); }, Record::fields());
}

// Whether Record declares `void validate() const`.
template <typename Record, typename = void>
struct has_validate : std::false_type {};
template <typename Record>
struct has_validate<Record, std::void_t<decltype(std::declval<const Record&>().validate())>>
    : std::true_type {};

// Field-wise equality of two records.
template <typename Record>
bool records_equal(const Record& a, const Record& b) {
  bool equal = true;
  for_each_field<Record>([&](auto f) { equal = equal && (a.*(f.member) == b.*(f.member)); });
  return equal;
}

}  // namespace costmetrics
