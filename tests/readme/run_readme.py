#!/usr/bin/python3
"""Runs the shell commands of README.md as written, and fails if one fails.

Every ```sh block of the README is run by bash (`set -e -o pipefail`, so any
failing command fails its block) in a scratch directory that holds links to
the repository's build/, examples/, scripts/, topologies/ and workloads/ and an empty
docs/, so the commands' outputs (sweep.csv, docs/capacity.png, ...) land in
the scratch directory and never in the repository. A block is left out only
when the line before its fence says why:

    <!-- readme-test: skip: the reason -->

(the quick start, which is what runs this test; the build-from-source steps;
the nightly job, which has its own test). Run as root, every block runs a
second time as the user `nobody` in a scratch directory of its own, so the
commands are shown to work for a normal user too (mpirun differs there).

Usage: run_readme.py [--repo DIR] [--block N]... [--list]
Exit codes: 0 every block passed, 1 a block failed (its script, output and
exit code are printed), 2 bad usage or no README.
"""

import argparse
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

LINKED = ("build", "examples", "scripts", "topologies", "workloads")
SKIP = re.compile(r"<!--\s*readme-test:\s*skip:\s*(.+?)\s*-->")


def blocks(readme_text):
    """(line number, skip reason or None, script) for every ```sh block."""
    lines = readme_text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            reason = None
            if i > 0:
                m = SKIP.search(lines[i - 1])
                if m:
                    reason = m.group(1)
            out.append((start, reason, "\n".join(lines[start:j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return out


def scratch(repo, owner):
    d = tempfile.mkdtemp(prefix="podsim-readme.")
    for name in LINKED:
        os.symlink(os.path.join(repo, name), os.path.join(d, name))
    os.mkdir(os.path.join(d, "docs"))
    if owner is not None:
        for path in (d, os.path.join(d, "docs")):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    return d


def run_block(script, cwd, owner):
    env = dict(os.environ)
    env["HOME"] = cwd  # mpirun and matplotlib write their settings under $HOME
    env["MPLCONFIGDIR"] = os.path.join(cwd, ".mpl")
    cmd = ["bash", "-e", "-o", "pipefail", "-c", script]
    if owner is not None:
        cmd = ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}",
               "--clear-groups", "--"] + cmd
        env["USER"] = env["LOGNAME"] = owner.pw_name
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    return p.returncode, p.stdout.decode(errors="replace"), time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.environ.get("PODSIM_SOURCE_DIR") or
                    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--block", type=int, action="append",
                    help="run only the block starting on this README line")
    ap.add_argument("--list", action="store_true", help="list the blocks and exit")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    readme = os.path.join(repo, "README.md")
    try:
        with open(readme, encoding="utf-8") as f:
            found = blocks(f.read())
    except OSError as e:
        print(f"run_readme.py: {readme}: {e.strerror}", file=sys.stderr)
        return 2
    if not os.access(os.path.join(repo, "build", "src", "cli", "podsim"), os.X_OK):
        print(f"run_readme.py: {repo}/build/src/cli/podsim is not built", file=sys.stderr)
        return 2
    if a.list:
        for line, reason, script in found:
            print(f"README.md:{line}: {'skip: ' + reason if reason else 'run'}: "
                  f"{script.splitlines()[0] if script.strip() else ''}")
        return 0
    users = [None]
    if os.geteuid() == 0:
        try:
            users.append(pwd.getpwnam("nobody"))
        except KeyError:
            print("run_readme.py: running as root and there is no user nobody: "
                  "the commands run as root only", file=sys.stderr)
    failed = 0
    ran = 0
    for owner in users:
        who = "root" if owner is None and os.geteuid() == 0 else (
            owner.pw_name if owner else pwd.getpwuid(os.geteuid()).pw_name)
        cwd = scratch(repo, owner)
        try:
            for line, reason, script in found:
                if a.block and line not in a.block:
                    continue
                if reason:
                    if owner is None:
                        print(f"README.md:{line}: skipped: {reason}")
                    continue
                rc, output, seconds = run_block(script, cwd, owner)
                ran += 1
                status = "ok" if rc == 0 else f"FAILED (exit {rc})"
                print(f"README.md:{line}: as {who}: {status} in {seconds:.1f} s")
                if rc != 0:
                    failed += 1
                    print("--- script ---\n" + script + "--- output (last 60 lines) ---")
                    print("\n".join(output.splitlines()[-60:]))
        finally:
            shutil.rmtree(cwd, ignore_errors=True)
    if ran == 0:
        print("run_readme.py: no block ran", file=sys.stderr)
        return 1
    print(f"{ran} block runs, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
