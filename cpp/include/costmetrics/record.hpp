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
