// The checkpoint file alone (serial: what rank 0 does): a round trip of the
// header and the columns, the write aside and rename, and the refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lu/io/checkpoint_file.hpp"
#include "lu/io/checkpoint_header.hpp"

using namespace npblu;
namespace fs = std::filesystem;

namespace {

constexpr GridSize kGrid{6, 7, 6};
constexpr std::size_t kColumn = 5 * 6 * 6;

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("npblu_test_" + std::to_string(getpid()) + "_" + name);
}

CheckpointHeader sample_header() {
  CheckpointHeader h;
  h.run.problem_class = "U";
  h.run.grid = kGrid;
  h.run.iterations = 40;
  h.run.dt = 0.1 + 0.2;  // not a short decimal: kept bit for bit
  h.iteration = 17;
  h.timed_seconds = 1.25;
  h.run.column_widths = {2, 3};
  h.run.balance = "diffusive";
  h.phase_names = {"rhs", "jacld"};
  h.phase_seconds_min = {1, 2};
  h.phase_seconds_max = {3, 4};
  h.phase_seconds_mean = {2, 3};
  return h;
}

std::vector<double> column_values(int j, double offset) {
  std::vector<double> v(kColumn);
  for (std::size_t p = 0; p < kColumn; ++p) v[p] = offset + j * 1000.0 + double(p) / 7.0;
  return v;
}

void write_checkpoint(const fs::path& path, double offset, const std::string& checksum) {
  CheckpointWriter w(path, sample_header());
  for (int j = 0; j < kGrid.ny; ++j) w.write_columns(j, j + 1, column_values(j, offset).data());
  w.commit(checksum);
}

std::string refusal(const fs::path& path) {
  try {
    CheckpointReader r(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CheckpointFile, RoundTripOfHeaderAndColumns) {
  const fs::path path = scratch("round.h5");
  write_checkpoint(path, 0.5, "0123456789abcdef");
  for (const auto& entry : fs::directory_iterator(path.parent_path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(name.rfind(path.filename().string() + ".", 0) == 0 && name.ends_with(".tmp"))
        << "an aside file left behind: " << name;
  }
  CheckpointReader r(path);
  const CheckpointHeader& h = r.header();
  EXPECT_EQ(h.format_version, kCheckpointFormatVersion);
  EXPECT_EQ(h.run.grid, kGrid);
  EXPECT_EQ(h.run.dt, 0.1 + 0.2);
  EXPECT_EQ(h.iteration, 17);
  EXPECT_EQ(h.run.column_widths, (std::vector<int>{2, 3}));
  EXPECT_EQ(h.run.balance, "diffusive");
  EXPECT_EQ(h.phase_names, (std::vector<std::string>{"rhs", "jacld"}));
  EXPECT_EQ(h.field_checksum, "0123456789abcdef");
  std::vector<double> read(kColumn * 3);
  r.read_columns(2, 5, read.data());
  for (int j = 2; j < 5; ++j) {
    const auto expected = column_values(j, 0.5);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), read.begin() + (j - 2) * kColumn))
        << "column " << j;
  }
  fs::remove(path);
}

// What rank 0 broadcasts of a header: every attribute of the table, bit for bit.
TEST(CheckpointFile, HeaderBytesRoundTrip) {
  CheckpointHeader h = sample_header();
  h.run.emulated_speeds = "1,0.5;@7:1,1";
  h.run.program_version = "v:1;[x]";  // the separators inside a string
  h.field_checksum = "0123456789abcdef";
  const CheckpointHeader back = header_from_bytes(header_bytes(h));
  EXPECT_EQ(header_bytes(back), header_bytes(h));
  EXPECT_EQ(back.run.grid, kGrid);
  EXPECT_EQ(back.run.dt, 0.1 + 0.2);
  EXPECT_EQ(back.run.column_widths, (std::vector<int>{2, 3}));
  EXPECT_EQ(back.run.emulated_speeds, "1,0.5;@7:1,1");
  EXPECT_EQ(back.run.program_version, "v:1;[x]");
  EXPECT_EQ(back.phase_seconds_max, (std::vector<double>{3, 4}));
  EXPECT_THROW(header_from_bytes(header_bytes(h) + "1;"), std::runtime_error);
}

TEST(CheckpointFile, AnUncommittedWriteLeavesThePreviousFileWhole) {
  const fs::path path = scratch("previous.h5");
  write_checkpoint(path, 0.0, "aaaaaaaaaaaaaaaa");
  fs::path aside;
  {
    CheckpointWriter w(path, sample_header());  // a write that never completes
    w.write_columns(0, 1, column_values(0, 9.0).data());
    aside = w.temporary();
    EXPECT_TRUE(fs::exists(aside));
    EXPECT_EQ(aside.parent_path(), path.parent_path());
  }
  EXPECT_FALSE(fs::exists(aside));
  EXPECT_EQ(CheckpointReader(path).header().field_checksum, "aaaaaaaaaaaaaaaa");
  write_checkpoint(path, 1.0, "bbbbbbbbbbbbbbbb");  // the next replaces it whole
  EXPECT_EQ(CheckpointReader(path).header().field_checksum, "bbbbbbbbbbbbbbbb");
  fs::remove(path);
}

TEST(CheckpointFile, Refusals) {
  EXPECT_EQ(refusal(scratch("none.h5")), "no such file");
  EXPECT_EQ(refusal(fs::temp_directory_path()), "not a regular file");
  const fs::path text = scratch("text.h5");
  std::ofstream(text) << "not HDF5\n";
  EXPECT_NE(refusal(text).find("not an HDF5 file"), std::string::npos);
  const fs::path path = scratch("cut.h5");
  write_checkpoint(path, 0.0, "cccccccccccccccc");
  fs::resize_file(path, fs::file_size(path) - 100);
  EXPECT_NE(refusal(path).find("truncated or corrupt"), std::string::npos);
  fs::remove(text);
  fs::remove(path);
}
