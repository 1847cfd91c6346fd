#include "lu/io/checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "lu/field_checksum.hpp"
#include "lu/io/checkpoint_header.hpp"
#include "lu/io/output_files.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/mpi/message_tags.hpp"
#include "lu/mpi/message_units.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/mpi/request_wait.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

namespace fs = std::filesystem;

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

std::string restart_problem(const fs::path& path, const std::string& problem) {
  return "--restart " + quote_value(path.string()) + ": " + one_line_message(problem);
}

// The header rank 0 read, on every rank: every attribute, through the
// header's table (its canonical bytes, checksummed on rank 0).
void broadcast_header(CheckpointHeader& h, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string bytes = broadcast_text(rank == 0 ? header_bytes(h) : std::string(), 0, comm);
  if (rank != 0) h = header_from_bytes(bytes);
}

// Another rank's stripe travels to or from rank 0 in pieces of about this
// size (at least one column), so rank 0 holds one piece beside its own
// stripe, not a second stripe (class C on 2 ranks: 83 MB).
constexpr std::size_t kPieceBytes = std::size_t(4) << 20;

// The pieces of `range` in column order: the same on rank 0 and on the rank
// that owns it (the column size is the grid's), so each message matches.
std::vector<ColumnRange> pieces_of(ColumnRange range, const Field5& u) {
  const std::size_t column_bytes = u.column_stride() * sizeof(double);
  const int per_piece = static_cast<int>(std::max<std::size_t>(1, kPieceBytes / column_bytes));
  std::vector<ColumnRange> pieces;
  for (int begin = range.begin; begin < range.end; begin += per_piece)
    pieces.push_back({begin, std::min(range.end, begin + per_piece)});
  return pieces;
}

// Rank 0's side of a save: receives every stripe in rank (hence column)
// order, digests and writes it. After a failed write it still receives the
// remaining stripes, so that no rank is left blocked in its send.
std::string write_stripes(CheckpointWriter& writer, const LuSolver& solver, int ny, MPI_Comm comm,
                          WaitMode wait) {
  const Field5& u = solver.state();
  const ColumnDatatype column(u);
  const Partition& p = solver.partition();
  std::vector<std::uint64_t> digests;
  std::string failure;
  for (int r = 0; r < p.ranks(); ++r) {
    const ColumnRange range = saved_columns(p[r], ny);
    for (const ColumnRange piece : r == 0 ? std::vector<ColumnRange>{range} : pieces_of(range, u)) {
      Field5 received;
      if (r != 0) {
        received = Field5(u.nx(), u.nz(), piece);
        MPI_Request request = MPI_REQUEST_NULL;
        check_mpi(MPI_Irecv(received.data(), piece.width(), column.get(), r, kTagCheckpoint, comm, &request),
                  "checkpoint receive");
        wait_for(request, wait);
      }
      const Field5& stripe = r == 0 ? u : received;
      for (int j = piece.begin; j < piece.end; ++j) digests.push_back(column_digest(stripe, j));
      try {
        if (failure.empty()) writer.write_columns(piece.begin, piece.end, stripe.column(piece.begin));
      } catch (const std::exception& e) {
        failure = e.what();
      }
    }
  }
  try {
    if (failure.empty()) writer.commit(combine_column_digests(digests));
  } catch (const std::exception& e) {
    failure = e.what();
  }
  return failure;
}

// "" or where the columns `range` of `stripe` hold a value that is not
// finite (a diverged run's state: continuing it could only give NaN).
std::string non_finite_value(const Field5& stripe, ColumnRange range) {
  for (int j = range.begin; j < range.end; ++j) {
    const double* c = stripe.column(j);
    for (std::size_t p = 0; p < stripe.column_stride(); ++p) {
      if (!std::isfinite(c[p]))
        return "the field holds a non-finite value (" + std::to_string(c[p]) + ") in column " +
               std::to_string(j);
    }
  }
  return {};
}

// Rank 0's side of a restore: reads every rank's columns under the new
// partition in rank order, digests and sends them. A failed read still
// sends (zeros), so that no rank is left blocked; the verdict follows.
std::string read_stripes(CheckpointReader& reader, LuSolver& solver, MPI_Comm comm) {
  Field5& u = solver.writable_state();
  const ColumnDatatype column(u);
  const Partition& p = solver.partition();
  const int ny = reader.header().run.grid.ny;
  std::vector<std::uint64_t> digests;
  std::string failure;
  for (int r = 0; r < p.ranks(); ++r) {
    const ColumnRange range = saved_columns(p[r], ny);
    for (const ColumnRange piece : r == 0 ? std::vector<ColumnRange>{range} : pieces_of(range, u)) {
      Field5 buffer = r == 0 ? Field5() : Field5(u.nx(), u.nz(), piece);
      Field5& stripe = r == 0 ? u : buffer;
      try {
        if (failure.empty()) reader.read_columns(piece.begin, piece.end, stripe.column(piece.begin));
      } catch (const std::exception& e) {
        failure = e.what();
      }
      for (int j = piece.begin; j < piece.end; ++j) digests.push_back(column_digest(stripe, j));
      if (failure.empty()) {
        const std::string value = non_finite_value(stripe, piece);
        if (!value.empty()) failure = value + ": the checkpointed run had diverged";
      }
      if (r != 0)
        check_mpi(MPI_Send(buffer.data(), piece.width(), column.get(), r, kTagCheckpoint, comm),
                  "checkpoint send");
    }
  }
  if (failure.empty() && combine_column_digests(digests) != reader.header().field_checksum) {
    failure = "the field does not match its checksum " + quote_value(reader.header().field_checksum) +
              " (a corrupt file)";
  }
  return failure;
}

std::uintmax_t size_of(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

}  // namespace

ColumnRange saved_columns(ColumnRange owned, int ny) {
  return {owned.begin == 1 ? 0 : owned.begin, owned.end == ny - 1 ? ny : owned.end};
}

std::string check_checkpoint_path(const fs::path& path, std::string_view option) {
  return check_replaces_only(option, path, is_npblu_checkpoint, "an npblu checkpoint");
}

std::string check_other_runs_checkpoint(const fs::path& path, const fs::path& restart, bool overwrite) {
  std::error_code ec;
  if (overwrite || !fs::exists(path, ec)) return {};
  if (!restart.empty() && fs::equivalent(path, restart, ec))
    return {};  // continued, then replaced as it goes
  std::string holds;
  try {  // (one open when it is a readable checkpoint, as it mostly is)
    const CheckpointHeader h = CheckpointReader(path).header();
    holds = "holds a checkpoint of class " + h.run.problem_class + " at iteration " +
            std::to_string(h.iteration) + " of " + std::to_string(h.run.iterations);
  } catch (const std::exception&) {
    // Unreadable: a checkpoint by its format attribute is still not replaced; anything else is
    // check_checkpoint_path's concern.
    if (!is_npblu_checkpoint(path)) return {};
    holds = "holds an npblu checkpoint";
  }
  const std::string name = quote_value(path.string());
  return "--checkpoint " + name + ": " + holds + ", which this run does not continue: give --restart " +
         name + " to continue it, --checkpoint-overwrite to replace it, or another file";
}

CheckpointStats save_checkpoint(const fs::path& path, const CheckpointHeader& header, const LuSolver& solver,
                                MPI_Comm comm) {
  const double start = wall_seconds();
  const bool root = rank_of(comm) == 0;
  // Rank 0 writes while the others wait: they wait as the solver does
  // (spinning on a core rank 0 shares would take its time).
  const WaitMode wait = solver.wait_mode();
  // A diverged run cannot be continued (a restart refuses its field): the
  // checkpoint the file holds stays, and the run stops saying why.
  const std::string diverged = non_finite_value(solver.state(), solver.owned());
  agree<RunFailure>(diverged.empty(),
                    "no checkpoint written at iteration " + std::to_string(header.iteration) + ": " +
                        diverged + " on rank " + std::to_string(rank_of(comm)) + ": the run has diverged (" +
                        quote_value(path.string()) + " is left as it was)",
                    comm, wait);
  std::unique_ptr<CheckpointWriter> writer;
  std::string failure;
  if (root) {
    try {
      writer = std::make_unique<CheckpointWriter>(path, header);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  agree<RunFailure>(failure.empty(), "writing the checkpoint failed: " + one_line_message(failure), comm,
                    wait);
  if (root) {
    failure = write_stripes(*writer, solver, header.run.grid.ny, comm, wait);
    writer.reset();  // removes the temporary file of a failed write
  } else {
    const Field5& u = solver.state();
    const ColumnDatatype column(u);
    for (const ColumnRange piece : pieces_of(saved_columns(solver.owned(), header.run.grid.ny), u)) {
      MPI_Request request = MPI_REQUEST_NULL;
      check_mpi(
          MPI_Isend(u.column(piece.begin), piece.width(), column.get(), 0, kTagCheckpoint, comm, &request),
          "checkpoint send");
      wait_for(request, wait);
    }
  }
  agree<RunFailure>(failure.empty(), "writing the checkpoint failed: " + one_line_message(failure), comm,
                    wait);
  return {wall_seconds() - start, root ? size_of(path) : 0};
}

CheckpointHeader read_checkpoint_header(const fs::path& path, MPI_Comm comm) {
  CheckpointHeader header;
  std::string failure;
  if (rank_of(comm) == 0) {
    try {
      header = CheckpointReader(path).header();
    } catch (const std::exception& e) {
      failure = restart_problem(path, e.what());
    }
  }
  agree(failure.empty(), failure, comm);
  broadcast_header(header, comm);
  return header;
}

CheckpointStats restore_checkpoint(const fs::path& path, const CheckpointHeader& header, LuSolver& solver,
                                   MPI_Comm comm) {
  const double start = wall_seconds();
  const bool root = rank_of(comm) == 0;
  std::unique_ptr<CheckpointReader> reader;
  std::string failure;
  if (root) {
    try {
      reader = std::make_unique<CheckpointReader>(path);
      // The header was read from an earlier open: a run writing the same file
      // may have renamed a newer checkpoint over it since. Its field would then
      // continue from the old header's iteration (a wrong answer, verified or not).
      if (header_bytes(reader->header()) != header_bytes(header))
        failure =
            "the file was replaced since its header was read (is another run writing it?): "
            "nothing restored; restart again once it is finished";
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  agree(failure.empty(), restart_problem(path, failure), comm);
  if (root) {
    failure = read_stripes(*reader, solver, comm);
  } else {
    Field5& u = solver.writable_state();
    const ColumnDatatype column(u);
    for (const ColumnRange piece : pieces_of(saved_columns(solver.owned(), header.run.grid.ny), u))
      check_mpi(MPI_Recv(u.column(piece.begin), piece.width(), column.get(), 0, kTagCheckpoint, comm,
                         MPI_STATUS_IGNORE),
                "checkpoint receive");
  }
  agree(failure.empty(), restart_problem(path, failure), comm);
  solver.state_written();
  solver.resume(header.iteration, header.timed_seconds);
  return {wall_seconds() - start, root ? size_of(path) : 0};
}

}  // namespace npblu
