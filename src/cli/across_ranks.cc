#include "cli/across_ranks.h"

#include <boost/program_options.hpp>
#include <exception>
#include <memory>

#include "cli/error_report.h"
#include "cli/exit_codes.h"
#include "config/diagnostics.h"
#include "report/output_file.h"
#include "sim/work_budget.h"

namespace podsim::cli {

int run_across_ranks(Context& ctx, const AcrossRanks& how,
                     const std::function<int(sweep::Transport&)>& command) {
  const std::unique_ptr<sweep::Transport> transport = sweep::make_transport();
  sweep::Transport& t = *transport;
  const bool writer = t.writes_output();
  t.set_on_error([&](const std::exception_ptr& e) { abort_job(e, t, ctx.err); });
  // Rank 0 reports the error, once, before the end-of-job handshake: once
  // the others have answered it they exit with the code, and mpirun, seeing
  // a rank exit non-zero, may kill rank 0 before it writes anything more (it
  // did: a capacity search past --max-events ended with the limit
  // unreported). The others end with the same code, silently.
  const auto orderly = [&](int code) {
    if (writer) {
      code = report_error(std::current_exception(), ctx.err);
      ctx.err.flush();
    }
    finish_job(t, ctx.err);
    return code;
  };
  try {
    const int code = command(t);
    finish_job(t, ctx.err);
    return code;
  } catch (const UsageError&) {
    return orderly(kExitBadInput);
  } catch (const boost::program_options::error&) {
    return orderly(kExitBadInput);
  } catch (const config::InputError&) {
    return orderly(kExitBadInput);
  } catch (const report::OutputError&) {
    return orderly(kExitBadInput);  // rank 0's, writing once the others are done
  } catch (const sim::WorkLimitExceeded&) {
    if (how.limits_shared)
      return orderly(kExitCheckFailed);
    abort_job(std::current_exception(), t, ctx.err);
    throw;
  } catch (...) {
    abort_job(std::current_exception(), t, ctx.err);
    throw;
  }
}

}  // namespace podsim::cli
