#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang, -fno-sanitize-recover=all: the first finding fails the test) in its
# own tree, build-sanitize/ (scripts/build-sanitize.sh), then run with CTest.
# CI runs it after the release build (scripts/test.sh); docs/testing.md
# gives its cost. Extra arguments go to ctest (e.g. -R config_).
#
#   scripts/test-sanitizers.sh [--ci] [CTEST ARGS]
#
# --ci (what scripts/test.sh passes) leaves out thirteen groups of tests too slow under
# the sanitizers for CI's 30 minutes, and only them. First,
# Shipped/ReplayAgreement.* (tests/engine/replay_agreement_test.cc) plays
# every shipped serving step on its whole pod (up to 4096 chips) chip by
# chip and transfer by transfer, without folding, to check the engine's
# shortcuts to the picosecond; under ASan+UBSan single cases ran past eight
# minutes. The release suite runs them on every CI run, and the sanitizers
# still see the same code (replay, lock step, playing every chip) through
# tests/coll/replay_test.cc and tests/engine/step_test.cc on small pods.
# Second, regression.determinism: it runs the shipped suite twice more to
# compare bytes (about 3.5 minutes under ASan); regression.nightly already
# plays that suite once under the sanitizers, and the release suite checks
# determinism. Third, fleet.mpi_capacity_matches_one_process: three capacity
# searches under mpirun, byte-compared with one process (125 s under ASan);
# the release suite runs it, and the sanitizers see the same search over
# several workers through tests/fleet/capacity_across_test.cc (threads).
# Fourth, CapacityAcross.ThreadsGiveTheOneThreadOutput and
# Capacity.OnTheAzureExampleTheRateFoundMeetsItsSlo: capacity searches over
# the 300-request Azure trace (92 s and 60 s under ASan, a quarter of the
# suite's CPU); the release suite runs them, and the sanitizers see the same
# search, its lookahead over several workers and its serve runs through
# CapacityLookahead.*, CapacitySearch.*, CapacityReplicas.* and Serve.*.
# Fifth, among the MPI tests, search.mpi_nothing_hangs and
# fleet.mpi_capacity_nothing_hangs: they stop ranks and wait out timeouts
# (60 s and 20 s under ASan, run alone); the release suite runs them, and
# the sanitizers see the same waits, heartbeats, end-of-job handshake and
# aborts through sweep.mpi_nothing_hangs and the other MPI tests.
# Sixth, Shipped/MonotonePhysics.*: about 800 whole steps of the shipped
# serving workloads, swept over context, batch, layers and the hardware's
# figures on two network models (a property of the physics, not of memory
# safety); the release suite runs them, and the sanitizers see the same
# steps through the shipped-workload and study tests.
# Seventh, five whole-fleet and whole-generation results:
# CapacityReplicas.TheFewestCopiesWhateverRanWithIt (65 s under ASan),
# Capacity.FewestChipsAtATargetRate (30 s),
# Serve.ContinuousBatchingBeatsStaticOnTheAzureConversationTrace (21 s),
# Serve.SameSeedSameBytesOtherSeedOtherRun (19 s) and
# Generation.InterpolatedWithinHalfAPercentOfEveryStep (15 s), when a
# clean-clone .ci/run took 1803 s of its 1800; the release suite runs them,
# and the sanitizers see the same searches, serve runs and generations
# through CapacitySearch.*, CapacityLookahead.*, the other Serve* and
# Generation.* tests.
# Eighth, two of the search's brute-force comparisons,
# Llama3_8B/SearchVsBruteForce.SameFrontierAsEveryConfigurationOnFlow/* and
# .TwoThreadsGiveTheSameResultAsOne/* (tests/search/search_test.cc: every
# configuration of an 8B step simulated to check the pruning, 30 to 36 s a
# case under ASan, 130 s of CPU in all, when clean-clone .ci/runs took 1561
# and 1654 s); the release suite runs them, and the sanitizers see the same
# search, its pruning and its threads through
# SearchVsBruteForce.RejectedCandidatesNeverReachASimulation/*, the other
# tests/search tests and SearchCommand.OutputIsTheSameForAnyNumberOfJobs.
# Ninth, seven of the largest cases of suites whose other cases stay in
# (clean-clone .ci/run 1821 s at 534f873, after issue 30's energy tests and
# build): ShippedTwistedTopologies/...v5p_8x16x16_twisted (47 s under ASan;
# the 4x4x8 twisted case stays), ShippedOperationLists/ModelAgreement...
# allreduce_1gib_v4_16x16x16 (18 s; the other shipped lists stay),
# Shapes/ModelAgreement.AllToAll*/torus4x4x4 (27 s; the other shapes stay),
# Llama3_8B/SearchVsBruteForce.RejectedCandidatesNeverReachASimulation/
# prefill (26 s; decode stays), SearchCommand.CalibrationAppliesToEverySlice
# AndTheFrontierNamesIt (23 s; the other SearchCommand tests and
# CalibrationOption.* stay) and ServeEnergy.KvCachesPayTheirBytesOverTheDcn
# (12 s; Serve.ADisaggregatedFleetPaysEachCachesTransferOverTheDcn plays the
# same fleet), SweepCommand.EveryShippedExampleRunsWithoutAnInvalidPoint (12
# s; the other SweepCommand tests stay), and the scripts.plot_* tests, which
# are Python alone and never run the sanitized podsim (35 s). The release
# suite runs them all.
# Tenth, four whole-fleet results of issue 31, when a clean-clone .ci/run
# took 1884 s with them: HitRateZero.TheShippedExamplesSummariesAreTheSame
# WithPrefixCachingOn (76 s under ASan: every shipped serve file twice; the
# other HitRateZero.* cases play the prefix cache under memory pressure),
# SloServe.DeadlineSchedulingBeatsFcfsGoodputUnderOverloadOnTheAzureSlice
# (40 s; Admission.*, DecodeProtection.* and SloServe.Classes* play the
# DEADLINE scheduler), HeteroFleet.TheShippedExampleMovesWhatTheDecodeChips
# Hold (28 s; HeteroFleet.ACacheMovesFromSixteenWay* and the others move
# resharded caches) and CapacityMixCommand.NamesTheMixWithTheFewestChips
# (13 s; CapacityMix.* search mixes), and scripts.serve_sweep (Python
# alone, a stand-in for podsim).
# Eleventh, issue 32's whole-fleet cases, when a clean-clone .ci/run took
# 1959 s with them: TimeBetweenTokensAzure.MixedStepsShowAsGapsThatTpotHides
# (42 s under ASan: the whole Azure example; TimeBetweenTokens.* play the gaps
# on hand-worked schedules), ServeSweep.EachRowIsPodsimServeOfItsPoint and
# .TheSameBytesForAnyJobs (15 and 12 s; ServeSweep.ZipAndTheReplicasInputs
# runs a serve sweep), ServeSet.CapacityOfTheOverriddenFile (14 s;
# ServeSet.OverridesTheServeFile stays) and html.render_in_chromium (9 s, a
# browser; skipped where Chromium is absent, as in CI). The release suite
# runs them all; the
# sanitizer build's regression.nightly also leaves out the suite's serve
# entries (tests/regression/CMakeLists.txt).
# Twelfth, when CI's clean-checkout .ci/run took 1999 s with the eleventh
# group out: sweep.mpi_nothing_hangs (53 s under ASan, run alone: it waits
# out rank timeouts) and search.mpi_two_ranks_match_one_process (37 s: two
# searches under mpirun); sweep.mpi_two_ranks_match_one_process and the
# fleet's MPI tests still play the transport, its handshake and its
# aborts under the sanitizers. Also WorkLimits.ServeAndCapacityAreLimitedToo
# (23 s: serve and capacity runs stopped by each limit; the other
# WorkLimits.* cases stop runs, sweeps and generations) and
# RunTrace.TraceUnitsAddsTheCriticalChipsUnitTracks (19 s; the other
# RunTrace.* cases write traces). The release suite runs them all.
# Thirteenth, when the clean-clone .ci/run took 1830 s with issue 33's
# tests: ServeCommand.ARequestCsvThatCannotBeWrittenLeavesNothing,
# .WritesEveryOutputAndRefusesBadInput and .PrintsEnergyAndWithAPricingFileCost
# (26, 24 and 18 s under ASan: whole serve runs around their outputs;
# ServeCommand.EveryFormatPrintsOneMessage, .ProgressNeverChangesStdout and
# .APricingFileWithoutTheChipsPriceExitsTwoBeforeTheRun stay),
# scripts.load_outputs (20 s: JSON against its schema, not memory safety),
# DeterminismTest.TwoSimulationsRunInTwoThreadsAtOnce (11 s; AddressSanitizer
# does not look for races) and
# SearchObjective.EnergyAndCostFrontiersAreTheirObjectivesAgainstLatency
# (10 s; the other search tests stay). The release suite runs them all.
# Seventeenth: tests/engine/symmetry_random_test.cc's three tests (random
# operation lists and serving steps, each played twice, 38 s under ASan:
# properties of the doubles; symmetry_test.cc's and fold_test.cc's cases
# play the same code under the sanitizers),
# ModelAgreement.RandomCollectivesAgreeInStepAndStayInTheBoundOutOfStep
# (4,000 runs) and SearchOutOfStep.AWiderMarginKeepsTheFrontierExactWhere
# DimensionsDiffer (a brute-force search, as the SearchVsBruteForce cases
# left out above). The release suite runs them.
# Without --ci every test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PODSIM_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=$(nproc || echo 2)
exclude='\.mpi_'  # run apart, below
mpi_exclude='^$'  # none
if [ "${1:-}" = --ci ]; then
  shift
  exclude+='|^Shipped/ReplayAgreement\.|^regression\.determinism$'
  exclude+='|^CapacityAcross\.ThreadsGiveTheOneThreadOutput$'
  exclude+='|^Capacity\.OnTheAzureExampleTheRateFoundMeetsItsSlo$'
  exclude+='|^Shipped/MonotonePhysics\.'
  exclude+='|^CapacityReplicas\.TheFewestCopiesWhateverRanWithIt$|^Capacity\.FewestChipsAtATargetRate$'
  exclude+='|^Serve\.ContinuousBatchingBeatsStaticOnTheAzureConversationTrace$'
  exclude+='|^Serve\.SameSeedSameBytesOtherSeedOtherRun$'
  exclude+='|^Generation\.InterpolatedWithinHalfAPercentOfEveryStep$'
  exclude+='|^Llama3_8B/SearchVsBruteForce\.(SameFrontierAsEveryConfigurationOnFlow|TwoThreadsGiveTheSameResultAsOne)/'
  exclude+='|^ShippedTwistedTopologies/Twisted\..*/v5p_8x16x16_twisted( |$)'
  exclude+='|^ShippedOperationLists/ModelAgreement\..*/allreduce_1gib_v4_16x16x16( |$)'
  exclude+='|^Shapes/ModelAgreement\.AllToAll.*/torus4x4x4( |$)'
  exclude+='|^Llama3_8B/SearchVsBruteForce\.RejectedCandidatesNeverReachASimulation/prefill( |$)'
  exclude+='|^SearchCommand\.CalibrationAppliesToEverySliceAndTheFrontierNamesIt$'
  exclude+='|^ServeEnergy\.KvCachesPayTheirBytesOverTheDcn$'
  exclude+='|^SweepCommand\.EveryShippedExampleRunsWithoutAnInvalidPoint$|^scripts\.plot_'
  exclude+='|^HitRateZero\.TheShippedExamplesSummariesAreTheSameWithPrefixCachingOn$'
  exclude+='|^SloServe\.DeadlineSchedulingBeatsFcfsGoodputUnderOverloadOnTheAzureSlice$'
  exclude+='|^HeteroFleet\.TheShippedExampleMovesWhatTheDecodeChipsHold$'
  exclude+='|^CapacityMixCommand\.NamesTheMixWithTheFewestChips$|^scripts\.serve_sweep$'
  exclude+='|^TimeBetweenTokensAzure\.MixedStepsShowAsGapsThatTpotHides$'
  exclude+='|^ServeSweep\.(EachRowIsPodsimServeOfItsPoint|TheSameBytesForAnyJobs)$'
  exclude+='|^ServeSet\.CapacityOfTheOverriddenFile$|^html\.render_in_chromium$'
  exclude+='|^WorkLimits\.ServeAndCapacityAreLimitedToo$'
  exclude+='|^RunTrace\.TraceUnitsAddsTheCriticalChipsUnitTracks$'
  exclude+='|^ServeCommand\.(ARequestCsvThatCannotBeWrittenLeavesNothing|WritesEveryOutputAndRefusesBadInput|PrintsEnergyAndWithAPricingFileCost)$'
  exclude+='|^scripts\.load_outputs$|^DeterminismTest\.TwoSimulationsRunInTwoThreadsAtOnce$'
  exclude+='|^SearchObjective\.EnergyAndCostFrontiersAreTheirObjectivesAgainstLatency$'
  exclude+='|^(SymmetricOpList\.RandomLists|SymmetricStep\.RandomSteps|FoldedStep\.RandomFaultySteps)GiveTheFullRunsResultsBitForBit$'
  exclude+='|^ModelAgreement\.RandomCollectivesAgreeInStepAndStayInTheBoundOutOfStep$'
  exclude+='|^SearchOutOfStep\.AWiderMarginKeepsTheFrontierExactWhereDimensionsDiffer$'
  mpi_exclude='^fleet\.mpi_capacity_matches_one_process$'
  mpi_exclude+='|^search\.mpi_nothing_hangs$|^fleet\.mpi_capacity_nothing_hangs$'
  mpi_exclude+='|^sweep\.mpi_nothing_hangs$|^search\.mpi_two_ranks_match_one_process$'
fi
scripts/build-sanitize.sh
# detect_leaks: LeakSanitizer is on by default with ASan on Linux; said here so
# that a leak failing a test is no surprise. abort_on_error gives a core-free
# abort CTest reports as a failure with the report above it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The MPI tests (sweep.mpi_*, search.mpi_*: podsim under mpirun) run with
# LeakSanitizer off: Open MPI leaves its own allocations from MPI_Init (in
# libmpi and in MCA components it has unloaded by exit, which LeakSanitizer
# cannot even name, so no suppression matches them) unfreed, and every rank
# reports them. AddressSanitizer and UBSan still check the ranks, and the
# same sweeps and searches run in one process, leaks checked, in the rest.
status=0
ctest --test-dir "$dir" --output-on-failure -j"$jobs" -E "$exclude" "$@" || status=$?
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -R '\.mpi_' -E "$mpi_exclude" "$@" ||
  status=$?
exit $status
