#!/usr/bin/env bash
# ci/unpack_debs.sh on small fixture bundles (no apt, no network): .debs made here with Python.
#   script_last   the only file the library check lists is a Perl script: unpack exits 0 (it
#                 once ran ldd on it under pipefail and exited 1 whenever a script came last)
#   missing_lib   an ELF tool needing libZ.so.6, which nothing provides: exit 0 and a WARNING
#                 naming the tool and the library
#   env_sh        the env.sh it writes chooses Open MPI's one-host launcher only where PATH
#                 has no ssh/rsh (runners/launch/mpi_local.sh)
#   no_debs       a folder without .debs: exit 5 and the hint
#   ci/unpack_debs_test.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# make_deb DEB NAME:MODE:SOURCE...: a .deb (ar: debian-binary, control.tar.gz, data.tar.gz)
# whose data holds each NAME with MODE and SOURCE's bytes; the folders lib/x86_64-linux-gnu
# and usr/lib/x86_64-linux-gnu are always there, as in the real bundle.
make_deb() {
  python3 - "$@" <<'PY'
import io, sys, tarfile, time
def tar(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, mode, data in entries:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                t.addfile(info)
            else:
                info.mode, info.size = mode, len(data)
                t.addfile(info, io.BytesIO(data))
    return buf.getvalue()
dirs = ["./lib", "./lib/x86_64-linux-gnu", "./usr", "./usr/bin", "./usr/lib", "./usr/lib/x86_64-linux-gnu"]
files = []
for spec in sys.argv[2:]:
    name, mode, src = spec.split(":", 2)
    files.append(("./" + name, int(mode, 8), open(src, "rb").read()))
control = b"Package: fixture\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: f\n"
members = [("debian-binary", b"2.0\n"), ("control.tar.gz", tar([("./control", 0o644, control)])),
           ("data.tar.gz", tar([(d, 0, None) for d in dirs] + files))]
with open(sys.argv[1], "wb") as out:
    out.write(b"!<arch>\n")
    for name, data in members:
        out.write(f"{name:<16}{int(time.time()):<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode())
        out.write(data + (b"\n" if len(data) % 2 else b""))
PY
}
# unpack CASE: ci/unpack_debs.sh on $work/CASE/debs into $work/CASE/prefix; output in CASE/log.
unpack() { "$here/unpack_debs.sh" "$work/$1/debs" "$work/$1/prefix" >"$work/$1/log" 2>&1; }

printf '#!/usr/bin/perl\nprint "a bundled script\\n";\n' >"$work/tool.pl"
python3 -c "
import sys; b = open('/usr/bin/true', 'rb').read()
assert b.count(b'libc.so.6\0') == 1, 'no single libc.so.6 in /usr/bin/true to rename'
open(sys.argv[1], 'wb').write(b.replace(b'libc.so.6\0', b'libZ.so.6\0'))" "$work/needs_libZ" ||
  { echo "FAIL: could not make the ELF fixture"; exit 1; }

mkdir -p "$work/script_last/debs"
make_deb "$work/script_last/debs/perl-tools.deb" "usr/bin/tool.pl:755:$work/tool.pl"
unpack script_last || bad "script_last: exit $?, want 0: $(tail -3 "$work/script_last/log")"
grep -q "unpack: 1 packages into" "$work/script_last/log" || bad "script_last: no summary line: $(cat "$work/script_last/log")"

mkdir -p "$work/missing_lib/debs"
make_deb "$work/missing_lib/debs/perl-tools.deb" "usr/bin/tool.pl:755:$work/tool.pl"
make_deb "$work/missing_lib/debs/needs.deb" "usr/bin/needs_libZ:755:$work/needs_libZ"
unpack missing_lib || bad "missing_lib: exit $?, want 0: $(tail -3 "$work/missing_lib/log")"
grep -q "^  usr/bin/needs_libZ: libZ.so.6$" "$work/missing_lib/log" ||
  bad "missing_lib: the unresolved libZ.so.6 is not reported: $(cat "$work/missing_lib/log")"
if grep -q "tool.pl" "$work/missing_lib/log"; then bad "missing_lib: the script was reported: $(cat "$work/missing_lib/log")"; fi

mkdir -p "$work/bin_with_ssh" && printf '#!/bin/sh\n' >"$work/bin_with_ssh/ssh" && chmod +x "$work/bin_with_ssh/ssh"
mkdir -p "$work/tools" && ln -s "$(command -v dirname)" "$work/tools/dirname"  # env.sh needs it
# plm_with_path DIR: OMPI_MCA_plm after sourcing env.sh with only DIR (and dirname) on PATH.
plm_with_path() {
  # shellcheck disable=SC2016  # expanded by the inner bash
  env -u OMPI_MCA_plm -u OMPI_MCA_plm_rsh_agent PATH="$1:$work/tools" \
    "$BASH" --norc -c '. "$0" && echo "plm=${OMPI_MCA_plm:-}"' "$work/script_last/prefix/env.sh"
}
[ "$(plm_with_path "$work/nothing")" = plm=isolated ] || bad "env_sh: no ssh/rsh, want plm=isolated, got $(plm_with_path "$work/nothing")"
[ "$(plm_with_path "$work/bin_with_ssh")" = plm= ] || bad "env_sh: ssh on PATH, want plm unset, got $(plm_with_path "$work/bin_with_ssh")"

mkdir -p "$work/no_debs/debs"
unpack no_debs; rc=$?
[ $rc = 5 ] || bad "no_debs: exit $rc, want 5"
grep -q "no .deb files in .*ci/bundle_debs.sh" "$work/no_debs/log" || bad "no_debs: no hint: $(cat "$work/no_debs/log")"

[ $fail = 0 ] && echo "unpack_debs on fixture bundles (script last, missing library, env.sh, no debs): ok"
exit $fail
