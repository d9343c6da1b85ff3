#include "gputwin/prometheus/query_api.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "gputwin/core/json_input.hpp"
#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

using nlohmann::json;

// nlohmann's names of the JSON types, as errors quote them.
constexpr const char* kObject = "object";
constexpr const char* kArray = "array";
constexpr const char* kString = "string";
constexpr const char* kNumber = "number";

// An error found while streaming, reported once the whole answer is read (so that malformed JSON, or an
// error Prometheus answered, wins over what the shape of the rest would give, as when a document is read
// first).
struct ShapeError {
  std::string path;
  std::string message;
};

// A member that should be a string, as last seen (a repeated key keeps its last value, as a document reader
// does): its text, or the JSON type it was instead.
class TextOrType {
 public:
  void assign(const char* type, const std::string* text) {
    seen_ = true;
    is_text_ = text != nullptr;
    value_ = text ? *text : std::string(type);
  }
  [[nodiscard]] bool seen() const { return seen_; }
  // The JSON type it had instead of a string; empty when it was a string or was not seen.
  [[nodiscard]] std::optional<std::string> other_type() const {
    return seen_ && !is_text_ ? std::optional<std::string>(value_) : std::nullopt;
  }
  // Its text: read only when seen() and no other_type().
  [[nodiscard]] const std::string& text() const { return value_; }

 private:
  bool seen_ = false;
  bool is_text_ = false;
  std::string value_;
};

// The first error of a kind among the series, by series index.
struct SeriesError {
  std::size_t series = 0;
  ShapeError error;
};

// Reads the answer's JSON as nlohmann's SAX events, straight into series: a query_range of every GPU is tens
// of MB, and a document of it costs more than its series (issue 19, item 6). Where the document reader would
// say a field is missing or mistyped, this says the same, with the same JSON path.
class AnswerHandler {
 public:
  bool null() { return scalar("null"); }
  bool boolean(bool /*value*/) { return scalar("boolean"); }
  bool number_integer(json::number_integer_t value) { return number(static_cast<double>(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return number(static_cast<double>(value)); }
  bool number_float(json::number_float_t value, const std::string& /*text*/) { return number(value); }
  bool binary(json::binary_t& /*value*/) { return scalar("binary"); }
  bool string(std::string& value);
  bool start_object(std::size_t /*size*/) { return open(false); }
  bool start_array(std::size_t /*size*/) { return open(true); }
  bool key(std::string& name) {
    stack_.back().key = name;
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
  }

  // The answer, or the first error in the order a reader of the whole document meets it.
  [[nodiscard]] std::variant<QueryAnswer, ShapeError> finish();

 private:
  // What a container is, by where it sits in the answer.
  enum class Kind { skip, root, warnings, data, result, entry, metric, points, pair };

  struct Frame {
    Kind kind = Kind::skip;
    bool is_array = false;
    std::size_t index = 0;  // arrays: the index of the element being read
    std::string key;        // objects: the member being read
  };

  // A [time, "value"] pair being read.
  struct Pair {
    bool instant = false;  // a vector entry's "value", else one of a matrix entry's "values"
    std::size_t elements = 0;
    bool well_formed = true;
    double time_s = 0;
    std::string value_text;
  };

  // What the series being read had.
  struct Entry {
    bool has_metric = false;
    bool has_value = false;
    bool has_values = false;
    std::optional<SeriesPoint> instant_point;
  };

  [[nodiscard]] Kind child_kind(bool is_array) const;
  bool open(bool is_array);
  bool close();
  bool scalar(const char* type);
  bool number(double value);
  void value_at(const char* type, const std::string* text);
  void root_member(const std::string& key, const char* type, const std::string* text);
  void data_member(const std::string& key, const char* type, const std::string* text);
  void entry_member(const std::string& key, const char* type);
  void pair_element(const char* type, const std::string* text);
  // After a value: its array's next element.
  void next_element() {
    if (!stack_.empty()) ++stack_.back().index;
  }

  // The JSON path through the first `frames` containers and the element each is reading.
  [[nodiscard]] std::string path_through(std::size_t frames) const;
  [[nodiscard]] std::string child_path() const { return path_through(stack_.size()); }
  void series_error(std::optional<SeriesError>& first, std::string where, std::string message) {
    if (!first) first = SeriesError{series_index_, {std::move(where), std::move(message)}};
  }
  void pair_error(bool instant, std::string where) {
    series_error(instant ? value_error_ : values_error_, std::move(where),
                 "expected [time, \"value\"] (a number and a string)");
  }
  void finish_pair();
  void finish_entry();
  void finish_labels();
  [[nodiscard]] std::optional<ShapeError> envelope_error() const;
  [[nodiscard]] std::optional<ShapeError> series_shape_error(ResultType type) const;

  std::vector<Frame> stack_;
  std::optional<std::string> root_type_;  // set when the root is not an object
  TextOrType status_;
  std::optional<std::string> error_type_;
  std::optional<std::string> error_text_;
  bool data_seen_ = false;
  std::optional<std::string> data_type_;  // set when "data" is not an object
  TextOrType result_type_;                // "resultType"
  bool result_seen_ = false;
  std::optional<std::string> result_not_array_;  // the type "result" had instead
  QueryAnswer answer_;
  std::vector<std::optional<SeriesPoint>> instant_points_;  // per series, its "value"
  std::size_t series_index_ = 0;                            // in "result", of the entry being read
  Entry entry_;
  Pair pair_;
  std::optional<SeriesError> general_error_;  // an entry or its labels
  std::optional<SeriesError> value_error_;    // a vector entry's "value"
  std::optional<SeriesError> values_error_;   // a matrix entry's "values"
};

std::string AnswerHandler::path_through(std::size_t frames) const {
  std::string text;
  for (std::size_t i = 0; i < frames && i < stack_.size(); ++i) {
    const Frame& frame = stack_[i];
    text += "/" + (frame.is_array ? std::to_string(frame.index) : frame.key);
  }
  return text;
}

AnswerHandler::Kind AnswerHandler::child_kind(bool is_array) const {
  if (stack_.empty()) return is_array ? Kind::skip : Kind::root;
  const Frame& parent = stack_.back();
  switch (parent.kind) {
    case Kind::root:
      if (parent.key == "warnings" && is_array) return Kind::warnings;
      if (parent.key == "data" && !is_array) return Kind::data;
      return Kind::skip;
    case Kind::data:
      return parent.key == "result" && is_array ? Kind::result : Kind::skip;
    case Kind::result:
      return is_array ? Kind::skip : Kind::entry;
    case Kind::entry:
      if (parent.key == "metric" && !is_array) return Kind::metric;
      if (parent.key == "values" && is_array) return Kind::points;
      if (parent.key == "value" && is_array) return Kind::pair;
      return Kind::skip;
    case Kind::points:
      return is_array ? Kind::pair : Kind::skip;
    default:
      return Kind::skip;
  }
}

// A value of `type` (its text when a string) read where the answer's shape says what it should be.
void AnswerHandler::value_at(const char* type, const std::string* text) {
  if (stack_.empty()) {
    if (std::string_view(type) != kObject) root_type_ = type;
    return;
  }
  const Frame& parent = stack_.back();
  switch (parent.kind) {
    case Kind::root:
      return root_member(parent.key, type, text);
    case Kind::warnings:
      if (text) answer_.warnings.push_back(*text);
      return;
    case Kind::data:
      return data_member(parent.key, type, text);
    case Kind::result:
      series_index_ = parent.index;
      if (std::string_view(type) != kObject)
        series_error(general_error_, child_path(), std::string("expected an object, got ") + type);
      return;
    case Kind::entry:
      return entry_member(parent.key, type);
    case Kind::metric:
      if (text)
        answer_.series.back().metric.emplace_back(parent.key, *text);
      else
        series_error(general_error_, child_path(), std::string("expected a string, got ") + type);
      return;
    case Kind::points:
      if (std::string_view(type) != kArray) pair_error(false, child_path());
      return;
    case Kind::pair:
      return pair_element(type, text);
    case Kind::skip:
      return;
  }
}

void AnswerHandler::root_member(const std::string& key, const char* type, const std::string* text) {
  if (key == "status") {
    status_.assign(type, text);
  } else if (key == "errorType" && text) {
    error_type_ = *text;
  } else if (key == "error" && text) {
    error_text_ = *text;
  } else if (key == "data") {
    data_seen_ = true;
    if (std::string_view(type) != kObject) data_type_ = type;
  }
}

void AnswerHandler::data_member(const std::string& key, const char* type, const std::string* text) {
  if (key == "resultType") {
    result_type_.assign(type, text);
  } else if (key == "result") {
    result_seen_ = true;
    if (std::string_view(type) != kArray) result_not_array_ = type;
  }
}

void AnswerHandler::entry_member(const std::string& key, const char* type) {
  const bool is_array = std::string_view(type) == kArray;
  if (key == "metric") {
    entry_.has_metric = true;
    if (std::string_view(type) != kObject)
      series_error(general_error_, child_path(), "expected an object of labels");
  } else if (key == "value") {
    entry_.has_value = true;
    if (!is_array) pair_error(true, child_path());
  } else if (key == "values") {
    entry_.has_values = true;
    if (!is_array) series_error(values_error_, child_path(), "expected an array of [time, value] pairs");
  }
}

void AnswerHandler::pair_element(const char* type, const std::string* text) {
  if (pair_.elements == 0 && std::string_view(type) != kNumber) pair_.well_formed = false;
  if (pair_.elements == 1) {
    if (text)
      pair_.value_text = *text;
    else
      pair_.well_formed = false;
  }
  if (pair_.elements >= 2) pair_.well_formed = false;
  ++pair_.elements;
}

bool AnswerHandler::scalar(const char* type) {
  value_at(type, nullptr);
  next_element();
  return true;
}

bool AnswerHandler::number(double value) {
  if (!stack_.empty() && stack_.back().kind == Kind::pair && pair_.elements == 0) pair_.time_s = value;
  return scalar(kNumber);
}

bool AnswerHandler::string(std::string& value) {
  value_at(kString, &value);
  next_element();
  return true;
}

bool AnswerHandler::open(bool is_array) {
  const Kind kind = child_kind(is_array);
  value_at(is_array ? kArray : kObject, nullptr);
  if (kind == Kind::entry) {
    entry_ = Entry{};
    answer_.series.emplace_back();
    instant_points_.emplace_back();
  }
  if (kind == Kind::metric) answer_.series.back().metric.clear();
  if (kind == Kind::points) answer_.series.back().points.clear();
  if (kind == Kind::pair) {
    pair_ = Pair{};
    pair_.instant = stack_.back().kind == Kind::entry;
  }
  stack_.push_back(Frame{kind, is_array, 0, {}});
  return true;
}

bool AnswerHandler::close() {
  const Kind kind = stack_.back().kind;
  if (kind == Kind::pair) finish_pair();
  if (kind == Kind::entry) finish_entry();
  if (kind == Kind::metric) finish_labels();
  stack_.pop_back();
  next_element();
  return true;
}

// Labels sorted by name, one value per name (the last, as a JSON object keeps it).
void AnswerHandler::finish_labels() {
  Labels& labels = answer_.series.back().metric;
  std::stable_sort(labels.begin(), labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto last_of_each = std::unique(labels.rbegin(), labels.rend(),
                                        [](const auto& a, const auto& b) { return a.first == b.first; });
  labels.erase(labels.begin(), last_of_each.base());
}

// Called with the pair's frame still on the stack; its path is built only for an error.
void AnswerHandler::finish_pair() {
  if (!pair_.well_formed || pair_.elements != 2)
    return pair_error(pair_.instant, path_through(stack_.size() - 1));
  const auto value = parse_sample_value(pair_.value_text);
  if (!value)
    return series_error(
        pair_.instant ? value_error_ : values_error_, path_through(stack_.size() - 1) + "/1",
        "expected a sample value (a number, NaN, +Inf or -Inf), got \"" + pair_.value_text + "\"");
  const SeriesPoint point{pair_.time_s, *value};
  if (pair_.instant)
    entry_.instant_point = point;
  else
    answer_.series.back().points.push_back(point);
}

void AnswerHandler::finish_entry() {
  const std::string where = "/data/result/" + std::to_string(series_index_);
  if (!entry_.has_metric) series_error(general_error_, where, "missing \"metric\"");
  if (!entry_.has_value) series_error(value_error_, where, "missing \"value\"");
  if (!entry_.has_values) series_error(values_error_, where, "missing \"values\"");
  instant_points_.back() = entry_.instant_point;
}

std::optional<ShapeError> AnswerHandler::envelope_error() const {
  if (root_type_) return ShapeError{"", "expected a JSON object, got " + *root_type_};
  if (!status_.seen()) return ShapeError{"", "missing \"status\""};
  if (auto type = status_.other_type()) return ShapeError{"/status", "expected a string, got " + *type};
  const std::string& status = status_.text();
  if (status == "error")
    return ShapeError{"", "Prometheus answered an error (" + error_type_.value_or("no errorType") +
                              "): " + error_text_.value_or("?")};
  if (status != "success")
    return ShapeError{"/status", "expected \"success\" or \"error\", got \"" + status + "\""};
  if (!data_seen_) return ShapeError{"", "missing \"data\""};
  if (data_type_) return ShapeError{"/data", "expected an object, got " + *data_type_};
  if (!result_type_.seen()) return ShapeError{"/data", "missing \"resultType\""};
  if (auto type = result_type_.other_type())
    return ShapeError{"/data/resultType", "expected a string, got " + *type};
  const std::string& result_type = result_type_.text();
  if (result_type != "vector" && result_type != "matrix")
    return ShapeError{"/data/resultType",
                      "expected vector or matrix (a query for series), got " + result_type};
  if (!result_seen_) return ShapeError{"/data", "missing \"result\""};
  if (result_not_array_) return ShapeError{"/data/result", "expected an array, got " + *result_not_array_};
  return std::nullopt;
}

// The first series' error, as a reader going series by series meets it: its labels, then its point(s).
std::optional<ShapeError> AnswerHandler::series_shape_error(ResultType type) const {
  const std::optional<SeriesError>& points = type == ResultType::vector ? value_error_ : values_error_;
  if (general_error_ && (!points || general_error_->series <= points->series)) return general_error_->error;
  if (points) return points->error;
  return std::nullopt;
}

std::variant<QueryAnswer, ShapeError> AnswerHandler::finish() {
  if (auto error = envelope_error()) return *error;
  answer_.type = result_type_.text() == "vector" ? ResultType::vector : ResultType::matrix;
  if (auto error = series_shape_error(answer_.type)) return *error;
  if (answer_.type == ResultType::vector)
    for (std::size_t i = 0; i < answer_.series.size(); ++i) answer_.series[i].points = {*instant_points_[i]};
  return std::move(answer_);
}

}  // namespace

Result<QueryAnswer> read_query_answer(std::string_view body, const std::string& source) {
  return result_of<QueryAnswer>([&] {
    AnswerHandler handler;
    if (!json::sax_parse(body.begin(), body.end(), &handler)) {
      // Malformed JSON: the document reader locates it (line and column, or the number no double holds).
      (void)parse_json(body, source);
      throw InputFailure(InputError{{source, 0, 0}, "", "malformed JSON"});
    }
    auto answer = handler.finish();
    if (auto* error = std::get_if<ShapeError>(&answer))
      throw InputFailure(InputError{{source, 0, 0}, error->path, error->message});
    return std::get<QueryAnswer>(std::move(answer));
  });
}

}  // namespace gputwin::prometheus
