#include "cli/error_report.h"

#include <boost/program_options/errors.hpp>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "config/diagnostics.h"
#include "report/output_file.h"
#include "sim/work_budget.h"
#include "sweep/transport.h"

namespace podsim::cli {

int report_error(const std::exception_ptr& error, std::ostream& err, const char* prefix) {
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    err << "podsim: " << prefix << e.what() << "\nRun 'podsim --help' for usage.\n";
    return kExitBadInput;
  } catch (const boost::program_options::error& e) {
    err << "podsim: " << prefix << e.what() << "\nRun 'podsim COMMAND --help' for usage.\n";
    return kExitBadInput;
  } catch (const report::OutputError& e) {
    err << "podsim: " << prefix << e.what() << '\n';
    return kExitBadInput;
  } catch (const config::InputError& e) {
    err << prefix << e.what() << '\n';
    return kExitBadInput;
  } catch (const sim::WorkLimitExceeded& e) {
    // A limit on work, not a bug: the run stopped, and wrote nothing.
    err << "podsim: " << prefix << e.what()
        << "\nNo result was written; raise the limit to run it (podsim run --help).\n";
    return kExitCheckFailed;
  } catch (const sweep::RankSilent& e) {
    // A rank stopped answering: a limit on waiting, not a bug in podsim.
    err << "podsim: " << prefix << e.what()
        << (e.at_end() ? "\nIt was the end of the job: every result was in, and the outputs "
                         "rank 0 wrote are complete.\n"
                       : "\nNo result was written.\n");
    return kExitCheckFailed;
  } catch (const std::exception& e) {
    err << "podsim: " << prefix << "internal error: " << e.what()
        << "\nThis is a bug in podsim; please report it.\n";
    return kExitInternal;
  } catch (...) {
    err << "podsim: " << prefix << "internal error: unexpected exception\n";
    return kExitInternal;
  }
}

void abort_job(const std::exception_ptr& error, sweep::Transport& transport, std::ostream& err) {
  if (transport.ranks() <= 1)
    return;
  const std::string prefix = "rank " + std::to_string(transport.rank()) + ": ";
  const int code = report_error(error, err, prefix.c_str());
  err.flush();
  transport.abort(code);
}

void finish_job(sweep::Transport& transport, std::ostream& err) {
  try {
    transport.finish();
  } catch (...) {
    abort_job(std::current_exception(), transport, err);
    throw;
  }
}

}  // namespace podsim::cli
