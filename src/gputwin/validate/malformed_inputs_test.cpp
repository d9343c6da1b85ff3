// Every reader over every file of tests/malformed: a located error or a clean empty result, never a crash;
// and what tests/malformed/EXPECTED.tsv says the reader each file imitates must report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "gputwin/prometheus/exposition_text.hpp"
#include "gputwin/validate/dcgm_diag.hpp"
#include "gputwin/validate/nccl_tests_json.hpp"
#include "gputwin/validate/nccl_tests_text.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"
#include "gputwin/validate/nvidia_smi_xml.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

// A reader's outcome on one file: its errors, or how many facts it found.
struct Outcome {
  InputErrors errors;
  std::size_t facts = 0;
};

template <class T, class Count>
Outcome outcome_of(const Result<T>& result, Count count) {
  if (!result.ok()) return {result.errors(), 0};
  return {{}, count(result.value())};
}

const std::map<std::string, std::function<Outcome(const std::string&)>>& readers() {
  static const std::map<std::string, std::function<Outcome(const std::string&)>> all = {
      {"xml",
       [](const std::string& p) {
         return outcome_of(NvidiaSmiXml::read_file(p), [](const NodeFacts& n) { return n.gpus.size(); });
       }},
      {"query-csv",
       [](const std::string& p) {
         return outcome_of(NvidiaSmiQueryCsv::read_file(p), [](const NodeFacts& n) { return n.gpus.size(); });
       }},
      {"table",
       [](const std::string& p) {
         return outcome_of(NvidiaSmiTable::read_file(p), [](const NodeFacts& n) { return n.gpus.size(); });
       }},
      {"nccl-text",
       [](const std::string& p) {
         return outcome_of(NcclTestsText::read_file(p), [](const NcclTestsRun& r) { return r.rows.size(); });
       }},
      {"nccl-json",
       [](const std::string& p) {
         return outcome_of(NcclTestsJson::read_file(p), [](const NcclTestsRun& r) { return r.rows.size(); });
       }},
      {"dcgm-diag",
       [](const std::string& p) {
         return outcome_of(DcgmDiag::read_file(p), [](const DcgmDiagReport& r) { return r.tests.size(); });
       }},
      {"metrics",
       [](const std::string& p) {
         return outcome_of(prometheus::ExpositionText::read_file(p),
                           [](const MetricScrape& s) { return s.samples.size(); });
       }},
  };
  return all;
}

std::vector<std::filesystem::path> corpus_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::malformed_corpus()))
    if (entry.is_regular_file() && entry.path().filename() != "EXPECTED.tsv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(MalformedInputs, CorpusHoldsAtLeastTwentyFiles) {
  EXPECT_GE(corpus_files().size(), 20U);
}

TEST(MalformedInputs, EveryReaderGivesALocatedErrorOrACleanEmptyResult) {
  for (const auto& file : corpus_files()) {
    for (const auto& [name, read] : readers()) {
      const Outcome outcome = read(file.string());
      if (outcome.errors.empty()) {
        // Only a file built to be a valid empty table may be accepted, and then with no facts.
        EXPECT_EQ(outcome.facts, 0U) << name << " found facts in " << file;
        continue;
      }
      const InputError& error = outcome.errors.front();
      EXPECT_EQ(error.where.file, file.string()) << name << ": " << error.to_string();
      EXPECT_FALSE(error.message.empty()) << name << " on " << file;
    }
  }
}

TEST(MalformedInputs, TheImitatedReaderReportsWhatExpectedSays) {
  std::ifstream manifest(testing::malformed_corpus() + "/EXPECTED.tsv");
  ASSERT_TRUE(manifest) << "tests/malformed/EXPECTED.tsv is missing";
  std::string line;
  int checked = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cells(line);
    std::string file, reader, expected;
    std::getline(cells, file, '\t');
    std::getline(cells, reader, '\t');
    std::getline(cells, expected, '\t');
    ASSERT_EQ(readers().count(reader), 1U) << line;
    const std::string path = testing::malformed_corpus() + "/" + file;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    const Outcome outcome = readers().at(reader)(path);
    ++checked;
    if (expected == "empty") {
      EXPECT_TRUE(outcome.errors.empty() && outcome.facts == 0) << line;
      continue;
    }
    ASSERT_FALSE(outcome.errors.empty()) << "no error for " << line;
    const InputError& error = outcome.errors.front();
    if (expected.rfind("line ", 0) == 0) {
      EXPECT_EQ(error.where.line, std::stoi(expected.substr(5))) << line << "\n  " << error.to_string();
    } else if (expected.rfind("field ", 0) == 0) {
      EXPECT_EQ(error.field, expected.substr(6)) << line << "\n  " << error.to_string();
    }
  }
  EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace gputwin::validate
