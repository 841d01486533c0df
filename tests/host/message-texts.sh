#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# message-texts: a scenario's check that a kernel-log message is absent
# ("! dmesg | grep ...", a kernel-log helper negated, an upper bound on a
# count) passes just as well when the message was renamed. Every such check
# in tests/*.sh and tests/faults/*.sh, found by its shape, must have each
# of its patterns (each alternative of an ERE) in
# tests/host/message-texts.tsv, and each row's sample line must match the
# scenario's pattern and be what a format string of each of its sources
# prints: our drivers' (host/, target/, common/) or the kernel's (Debian's
# linux-source, for the stock modules and KUnit). A row for a check that
# is gone fails too. Controls: a renamed message is not found in its
# source, and the check finder reads each alternative of a negated grep.
# covers: each negative kernel-log check has its message text in the sources
# rig: once fast=once
#
# Usage: tests/host/message-texts.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
table=$root/tests/host/message-texts.tsv

# the kernel trees the table names: the one scripts/lib.sh's source_tree
# extracted (if it is whole), else only the files named, from the tarball
# (about 10 s a series; not source_tree itself: the style gates may be
# extracting the same tree beside this)
ktrees=()
for s in $(awk -F'\t' '!/^#/ && NF >= 4 { n = split($4, a, " ")
		for (i = 1; i <= n; i++) if (a[i] !~ /^ours:/) { sub(/:.*/, "", a[i]); print a[i] } }' \
		"$table" | sort -u); do
	tarball=/usr/src/linux-source-$s.tar.xz
	dir=$NVMEOF_CACHE/src/linux-source-$s
	if [ -e "$dir/.extracted-$(stat -c %Y "$tarball" 2> /dev/null)" ]; then
		ktrees+=("$s=$dir")
	elif [ -e "$tarball" ]; then
		mkdir -p "$tmp/ksrc"
		awk -F'\t' -v s="$s" '!/^#/ && NF >= 4 { n = split($4, a, " ")
			for (i = 1; i <= n; i++) if (a[i] ~ "^" s ":") print "linux-source-" s "/" substr(a[i], length(s) + 2) }' \
			"$table" | sort -u | xargs tar -C "$tmp/ksrc" -xJf "$tarball" 2> "$tmp/tar.err" ||
			echo "CASE FAIL linux-source-$s -- $(tr '\n' ' ' < "$tmp/tar.err")"
		ktrees+=("$s=$tmp/ksrc/linux-source-$s")
	fi
done

/usr/bin/python3 - "$root" "$table" "$tmp" "${ktrees[@]}" <<'PY'
import glob, os, re, subprocess, sys

root, table, tmp = sys.argv[1:4]
ktree = dict(a.split('=', 1) for a in sys.argv[4:])

def case(ok, name, why=''):
    print('CASE %s %s%s' % ('PASS' if ok else 'FAIL', name, '' if ok else ' -- ' + why))

# --- the checks: a line that negates a kernel-log read, or bounds a count
# of its lines from above ---
NEG = re.compile(r'!\s*(?:dmesg\b|klog\w*|in_dmesg\b|rig_klog\w*|rig_reconnect\w*'
                 r'|rig_wait\s+\S+\s+rig_reconnect\w*)')
BOUND = re.compile(r'(?:dmesg|klog\w*)\s*\|.*\bgrep\s+-[A-Za-z]*c.*(?:-le|-lt|(?:-eq|=)\s+0\b)'
                   r'|rig_reconnects\b.*(?:-le|-lt|(?:-eq|=)\s+0\b)')
# a pattern: grep's (ERE with -E), or that of a scenario's ERE helper
PAT = re.compile(r'\bgrep((?:\s+-[A-Za-z]+)*)\s+(["\'])(.*?)\2|\b(klog_has|in_dmesg)\s+(["\'])(.*?)\5')
lib = open(os.path.join(root, 'rig/guest/lib.sh')).read()
m = re.search(r'rig_reconnects\(\) \{ dmesg \| grep -c "([^"]*)"', lib)
reconnect_pat = m.group(1) if m else None

def patterns(line):
    """[(pattern, 'E'|'G')] of a negative check's line, None if unreadable"""
    if re.search(r'\brig_reconnect', line):
        return [(reconnect_pat, 'G')] if reconnect_pat else None
    m = PAT.search(line)
    if not m:
        return None
    if m.group(4):
        pat, mode = m.group(6), 'E'
    else:
        pat, mode = m.group(3), 'E' if 'E' in (m.group(1) or '') else 'G'
    alts = pat.split('|') if mode == 'E' else pat.split('\\|')
    return [(a, mode) for a in alts]

def checks(path):
    """{(pattern, mode): [line numbers]} of the file's negative checks; and
    the lines whose pattern cannot be read"""
    found, unread = {}, []
    for no, line in enumerate(open(path), 1):
        if line.lstrip().startswith('#') or not (NEG.search(line) or BOUND.search(line)):
            continue
        ps = patterns(line)
        if ps is None:
            unread.append(no)
            continue
        for p in ps:
            found.setdefault(p, []).append(no)
    return found, unread

# --- the format strings of C sources: adjacent literals joined ---
ESC = {'n': '\n', 't': '\t', '"': '"', '\\': '\\', "'": "'"}
def literals(path):
    s = open(path, errors='replace').read()
    out, cur, last, i, n = [], None, -1, 0, len(s)
    while i < n:
        if s.startswith('/*', i):
            j = s.find('*/', i + 2); i = n if j < 0 else j + 2; continue
        if s.startswith('//', i):
            j = s.find('\n', i); i = n if j < 0 else j; continue
        c = s[i]
        if c == "'":
            j = i + 1
            while j < n and s[j] != "'":
                j += 2 if s[j] == '\\' else 1
            i = j + 1; continue
        if c == '"':
            j, buf = i + 1, []
            while j < n and s[j] != '"':
                if s[j] == '\\' and j + 1 < n:
                    buf.append(ESC.get(s[j + 1], '')); j += 2
                else:
                    buf.append(s[j]); j += 1
            if cur is not None and s[last:i].strip() == '':
                cur += ''.join(buf)
            else:
                if cur is not None:
                    out.append(cur)
                cur = ''.join(buf)
            last = i = j + 1
            continue
        i += 1
    if cur is not None:
        out.append(cur)
    return out

SPEC = re.compile(r'%%|%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?'
                  r'(?:p[A-Za-z0-9]*|[diouxXcsaAeEfFgG])')
def compile_fmt(f):
    """(regex, longest literal piece, anchored at the line's end) of a
    format string, None if it has too little text of its own to tell"""
    anchored = f.endswith('\n')
    f = f.rstrip('\n')
    rx, pieces, at = '', [], 0
    for m in SPEC.finditer(f):
        pieces.append(f[at:m.start()])
        rx += re.escape(f[at:m.start()])
        if m.group() == '%%':
            pieces.append('%'); rx += '%'
        else:
            rx += '.*'
        at = m.end()
    pieces.append(f[at:]); rx += re.escape(f[at:])
    if len(''.join(pieces)) < 6 or '\n' in f:
        return None
    return re.compile(rx, re.S), max(pieces, key=len), anchored

fmt_cache = {}
def formats(src):
    """the compiled format strings of a table's source, or a reason"""
    if src in fmt_cache:
        return fmt_cache[src]
    where, _, path = src.partition(':')
    if where == 'ours':
        files = sorted(glob.glob(os.path.join(root, path)))
    elif where in ktree:
        files = [f for f in [os.path.join(ktree[where], path)] if os.path.exists(f)]
    else:
        fmt_cache[src] = 'no linux-source-%s (apt-get install linux-source-%s)' % (where, where)
        return fmt_cache[src]
    if not files:
        fmt_cache[src] = 'no file %s' % src
        return fmt_cache[src]
    fs = [c for f in files for c in map(compile_fmt, literals(f)) if c]
    fmt_cache[src] = fs
    return fs

def printed_by(fs, sample, ps, pe):
    """does a format string print SAMPLE, its span [ps, pe) (what the
    scenario's pattern matched) inside what the format string itself
    prints? (so a bare "%s\\n" does not count)"""
    for rx, piece, anchored in fs:
        if piece not in sample:
            continue
        for s in range(ps + 1):
            if anchored:
                if rx.fullmatch(sample, s):
                    return True
            elif any(rx.fullmatch(sample, s, e) for e in range(pe, len(sample) + 1)):
                return True
    return False

def span(pat, mode, sample):
    """where grep (as the scenario runs it) matches PAT in SAMPLE"""
    r = subprocess.run(['grep', '-ob', '-' + mode, '--', pat], input=sample + '\n',
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    off, _, text = r.stdout.split('\n')[0].partition(':')
    return int(off), int(off) + len(text)

def judge(pat, mode, sample, sources):
    """None if each source prints SAMPLE and PAT matches it, else why not"""
    sp = span(pat, mode, sample)
    if sp is None:
        return "the pattern does not match '%s'" % sample
    for src in sources:
        fs = formats(src)
        if isinstance(fs, str):
            return fs
        if not printed_by(fs, sample, *sp):
            return "no format string of %s prints '%s'" % (src, sample)
    return None

# --- controls: the judges can fail ---
why = judge('posting a .*signalled response went missing', 'G',
            'nvmet_rdma: queue 3: posting a signalled response went missing', ['ours:target/*.c'])
case(why is not None, 'control: a renamed message is not found in its source',
     'found all the same')
ctl = os.path.join(tmp, 'control.sh')
with open(ctl, 'w') as f:
    f.write('rig_check "x" sh -c \'! dmesg | grep -E "posting a|post_recv cmd failed"\'\n'
            '# rig_check "y" sh -c \'! dmesg | grep "a comment"\'\n'
            'rig_check "z" sh -c \'[ $(dmesg | grep -c "type 0x[23]0") -le 40 ]\'\n'
            'rig_check "w" eval \'! rig_wait 30 rig_reconnected\'\n')
got, unread = checks(ctl)
want = {('posting a', 'E'): [1], ('post_recv cmd failed', 'E'): [1],
        ('type 0x[23]0', 'G'): [3], (reconnect_pat, 'G'): [4]}
case(got == want and not unread, 'control: the check finder reads each negated pattern',
     'got %s, unread lines %s' % (got, unread))

# --- the table against the scenarios ---
rows = []
for no, line in enumerate(open(table), 1):
    if line.startswith('#') or not line.strip():
        continue
    f = line.rstrip('\n').split('\t')
    if len(f) != 5 or not all(x.strip() for x in f):
        case(False, 'message-texts.tsv line %d' % no, 'not 5 fields: %r' % line)
        continue
    rows.append((f[0], f[1], f[2], f[3].split(), no))

found = {}
for path in sorted(glob.glob(os.path.join(root, 'tests/*.sh')) +
                   glob.glob(os.path.join(root, 'tests/faults/*.sh'))):
    rel = os.path.relpath(path, root)
    got, unread = checks(path)
    for no in unread:
        case(False, '%s:%d' % (rel, no), 'a negative kernel-log check whose pattern this test cannot read')
    for (pat, mode), nos in got.items():
        found[rel, pat] = mode
        if not any(r[0] == rel and r[1] == pat for r in rows):
            case(False, "%s: '%s'" % (rel, pat),
                 'negative check (line %s) without a row in message-texts.tsv' % ','.join(map(str, nos)))

for rel, pat, sample, sources, no in rows:
    name = "%s: '%s' as %s prints it" % (rel, pat, ' '.join(sources))
    if (rel, pat) not in found:
        case(False, name, 'message-texts.tsv line %d: no such negative check in %s' % (no, rel))
        continue
    why = judge(pat, found[rel, pat], sample, sources)
    case(why is None, name, why or '')
PY
