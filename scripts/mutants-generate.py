#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate mutants of a kernel patch series mechanically.

    mutants-generate.py TREE BASE OUTDIR [--sample N --seed S] [--list]

TREE is a kernel git worktree whose HEAD is the code under mutation, BASE
the revision the series applies to. The files considered are the C
sources and headers that BASE..HEAD changes, less tools/, Documentation/,
include/uapi/ and *_test.c. In the files of WHOLE_FUNCTION_FILES every
line of every function that the series touches is mutated; in the others
only the lines the series adds (their functions are not ours). Blank
lines, comments, preprocessor lines and declarations are never mutated.

Each operator of OPERATORS makes one mutant per site it applies to. A
mutant is written as OUTDIR/ID.patch: a first line that says what it does
(operator, file:line, function, the original and the mutated text), as in
tests/mutants/*.patch, then a unified diff that git apply applies to
TREE's HEAD. ID is FUNCTION-OPERATOR-HASH, HASH the first 8 hex digits of
the sha1 of the file, the function, the original and the mutated lines
and how many times those original lines occur earlier in the function:
it does not change when unrelated lines move. Mutants whose mutated file
is the original, or another mutant's, are dropped. Generated patches left
in OUTDIR by an earlier run and not made again are removed; other files
there are left alone.

--list prints one line per mutant (ID, operator, file:line, function)
and writes nothing; otherwise the counts per operator and per function
and the total are printed. --sample N --seed S keeps N mutants, the same
ones for the same N, S and code: those whose sha1 of "S:ID" is lowest.

Every patch written is applied to HEAD in a temporary index (the
worktree and the real index of TREE are not touched) and the result is
compared with the mutated file; any difference is a bug of this script,
which then exits non-zero.
"""
import argparse
import bisect
import collections
import difflib
import hashlib
import os
import re
import subprocess
import sys
import tempfile

# Files of the series whose touched functions are ours from top to bottom.
WHOLE_FUNCTION_FILES = ('security/commoncap.c', 'include/linux/cred.h')
EXCLUDED_DIRS = ('tools/', 'Documentation/', 'include/uapi/')
MARK = '(mutants-generate.py)'

SETS = ('cap_ambient', 'cap_permitted', 'cap_inheritable', 'cap_effective',
        'cap_bset')
AUDIT_FIELDS = ('ambient', 'permitted', 'inheritable', 'effective')
ERRNO_SWAP = {'EPERM': 'EINVAL', 'EINVAL': 'EPERM', 'ENOMEM': 'EINVAL'}
CAP_OP_SWAP = {'cap_raise': 'cap_lower', 'cap_lower': 'cap_raise',
               'cap_combine': 'cap_intersect', 'cap_intersect': 'cap_combine'}
NOT_TYPES = {'return', 'goto', 'case', 'else', 'do', 'sizeof', 'break',
             'continue', 'default'}

DECL_RE = re.compile(
    r'(?:(?:const|static|volatile|register|unsigned|signed|struct|union|enum'
    r'|long|short)\s+)*([A-Za-z_]\w*)(?:\s+|\s*\*[\s*]*)(?:const\s+)?'
    r'[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)?[=,;]')
HEAD_RE = re.compile(r'(if|while|for|switch)\s*\(')
ELSE_DO_RE = re.compile(r'(else|do)\b')
LABEL_RE = re.compile(r'case\b[^;]*?:(?!:)|default\s*:|[A-Za-z_]\w*\s*:(?![:=])')
WRITE_RE = re.compile(r'(?:\s*(?:->|\.)\s*\w+)*\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)'
                      r'|\+\+|--)')
WRITER_CALL_RE = re.compile(r'\b(?:cap_clear|cap_raise|cap_lower)\s*\(\s*$')


def git(tree, *args, env=None, check=True):
    res = subprocess.run(['git', '-C', tree] + list(args), env=env,
                         capture_output=True)
    if check and res.returncode:
        sys.exit(f'git {" ".join(args)}: {res.stderr.decode().strip()}')
    return res


def git_text(tree, *args):
    return git(tree, *args).stdout.decode('utf-8', 'surrogateescape')


# ---- the files and lines of the series

def considered(path):
    """Is PATH a C source or header of the series that is mutated?"""
    base = os.path.basename(path)
    return (path.endswith(('.c', '.h')) and not path.startswith(EXCLUDED_DIRS)
            and not base.endswith('_test.c'))


def series_files(tree, base):
    out = git_text(tree, 'diff', '--no-renames', '--name-only',
                   '--diff-filter=AM', base, 'HEAD')
    return sorted(p for p in out.splitlines() if considered(p))


def added_lines(tree, base, path):
    """The 0-based lines of HEAD's PATH that BASE..HEAD adds or changes."""
    out = git_text(tree, 'diff', '--no-renames', '-U0', base, 'HEAD', '--', path)
    lines = set()
    for m in re.finditer(r'^@@ -\S+ \+(\d+)(?:,(\d+))? @@', out, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start - 1, start - 1 + count))
    return lines


# ---- lexing: comments, literals and preprocessor lines blanked

def blank(out, start, end):
    for i in range(start, end):
        if out[i] != '\n':
            out[i] = ' '


def literal_end(text, i):
    """The index of the quote that closes the literal opened at I."""
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote and text[j] != '\n':
        j += 2 if text[j] == '\\' else 1
    return min(j, len(text) - 1)


def directive_end(text, i):
    """The end of the preprocessor line at I, continuation lines included."""
    while True:
        e = text.find('\n', i)
        if e < 0:
            return len(text)
        if text[e - 1] != '\\':
            return e
        i = e + 1


def mask(text, strings=True):
    """TEXT with comments, preprocessor lines and (if STRINGS) the insides
    of string and character literals replaced by spaces: same length, same
    newlines, so offsets and line numbers carry over."""
    out = list(text)
    i, n, line_start = 0, len(text), True
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            blank(out, i, j)
            i = j
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            blank(out, i, j)
            i = j
            continue
        if c == '#' and line_start:
            j = directive_end(text, i)
            blank(out, i, j)
            i = j
            continue
        if c in '"\'':
            j = literal_end(text, i)
            if strings:
                blank(out, i + 1, j)
            i, line_start = j + 1, False
            continue
        if c == '\n':
            line_start = True
        elif not c.isspace():
            line_start = False
        i += 1
    return ''.join(out)


def line_starts(text):
    return [0] + [i + 1 for i, c in enumerate(text) if c == '\n']


def line_of(starts, offset):
    return bisect.bisect_right(starts, offset) - 1


def matching(masked, i, end=None):
    """The index of the bracket that closes the one at I."""
    pairs = {'(': ')', '[': ']', '{': '}'}
    stack = []
    end = len(masked) if end is None else end
    for j in range(i, end):
        c = masked[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ')]}':
            if stack and stack[-1] == c:
                stack.pop()
            if not stack:
                return j
    return end - 1


# ---- functions and statements

def function_head(head):
    """(name, return type) if HEAD, the text before a top-level '{', is a
    function definition's, else None."""
    head = head.strip()
    if not head.endswith(')') or '(' not in head or ';' in head:
        return None
    depth, params = 0, None
    for j in range(len(head) - 1, -1, -1):
        depth += {')': 1, '(': -1}.get(head[j], 0)
        if depth == 0:
            params = j
            break
    if params is None:
        return None
    outer = head[:params]
    if '=' in re.sub(r'\([^()]*\)', '', outer):
        return None
    m = re.search(r'([A-Za-z_]\w*)\s*$', outer)
    if not m:
        return None
    return m.group(1), ' '.join(outer[:m.start()].split())


def return_kind(ret):
    words = re.findall(r'\w+', ret)
    if '*' in ret:
        return 'pointer'
    if 'void' in words:
        return 'void'
    if 'bool' in words:
        return 'bool'
    return 'int'


def find_functions(masked, starts):
    """The function definitions starting at column 0: dicts with name,
    ret, head (offset of the definition), open and close (of its body)."""
    funcs, prev, i = [], 0, 0
    while i < len(masked):
        c = masked[i]
        if c in ';}':
            prev = i + 1
        elif c == '{':
            close = matching(masked, i)
            head = masked[prev:i]
            start = prev + len(head) - len(head.lstrip())
            found = function_head(head)
            if found and start == starts[line_of(starts, start)]:
                funcs.append({'name': found[0], 'ret': return_kind(found[1]),
                              'head': start, 'open': i, 'close': close})
            i, prev = close, close + 1
        i += 1
    return funcs


def statement_end(masked, i, end):
    """The index just past the ';' that ends the statement starting at I."""
    depth = 0
    for j in range(i, end):
        c = masked[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c == ';' and depth == 0:
            return j + 1
    return end


def statement_kind(code):
    code = ' '.join(code.split())
    word = re.match(r'\w*', code).group(0)
    if word == 'return':
        return 'return'
    if word in ('break', 'continue', 'goto'):
        return 'jump'
    m = DECL_RE.match(code)
    if m and m.group(1) not in NOT_TYPES:
        return 'decl'
    return 'expr'


def parse_body(masked, fn):
    """Fill FN's stmts (start, end, kind, and whether it is the unbraced
    body of an if/else/while/for/do), conds (keyword, '(' and ')' of each
    if and while) and first (offset of the first thing in the body that
    is not a declaration)."""
    stmts, conds, first = [], [], None
    i, end, after_head = fn['open'] + 1, fn['close'], False
    while i < end:
        c = masked[i]
        if c.isspace():
            i += 1
            continue
        head = HEAD_RE.match(masked, i)
        word = ELSE_DO_RE.match(masked, i)
        label = LABEL_RE.match(masked, i)
        at = i
        if c in '{};':
            i, after_head = i + 1, False
        elif head:
            close = matching(masked, head.end() - 1, end)
            if head.group(1) in ('if', 'while'):
                conds.append((head.group(1), head.end() - 1, close))
            i, after_head = close + 1, True
        elif word:
            i, after_head = word.end(), True
        elif label:
            i, after_head = label.end(), False
        else:
            stop = statement_end(masked, i, end)
            stmts.append({'start': i, 'end': stop,
                          'kind': statement_kind(masked[i:stop]),
                          'body': after_head})
            i, after_head = stop, False
            if stmts[-1]['kind'] == 'decl':
                continue
        if first is None:
            first = at
    fn.update(stmts=stmts, conds=conds, first=first)


# ---- where mutants may go

def mutable_lines(src, funcs, whole, added):
    """The 0-based lines that may be mutated: code (no blank, comment or
    preprocessor line) in the function bodies in scope, and no declaration.
    With WHOLE, a function is in scope from top to bottom if the series
    touched it (fn['whole'] says so); without, only the lines it added."""
    starts = src['starts']
    code = {n for n, ln in enumerate(src['masked'].split('\n')) if ln.strip()}
    decl, lines = set(), set()
    for fn in funcs:
        top, last = (line_of(starts, fn[k]) for k in ('open', 'close'))
        body = set(range(top, last + 1))
        fn['whole'] = whole and bool(
            added & set(range(line_of(starts, fn['head']), last + 1)))
        if fn['whole']:
            lines |= body
        elif not whole:
            lines |= body & added
        for st in fn['stmts']:
            if st['kind'] == 'decl':
                decl.update(range(line_of(starts, st['start']),
                                  line_of(starts, st['end'] - 1) + 1))
    return (lines & code) - decl


def in_scope(src, start, end):
    first = line_of(src['starts'], start)
    last = line_of(src['starts'], max(start, end - 1))
    return any(n in src['mutable'] for n in range(first, last + 1))


def body_matches(src, fn, regex):
    """The matches of REGEX in FN's body on lines that may be mutated."""
    for m in regex.finditer(src['masked'], fn['open'] + 1, fn['close']):
        if in_scope(src, m.start(), m.end()):
            yield m


def trimmed(masked, start, end):
    """START..END without the (masked) white space at either end."""
    while start < end and masked[start].isspace():
        start += 1
    while end > start and masked[end - 1].isspace():
        end -= 1
    return start, end


# ---- the operators: each yields edits (start, end, replacement)

def op_negate_cond(src, fn):
    text, masked = src['text'], src['masked']
    for _, o, c in fn['conds']:
        if in_scope(src, o, c + 1):
            s, e = trimmed(masked, o + 1, c)
            yield s, e, '!(' + text[s:e] + ')'
    if fn['ret'] != 'bool':
        return
    for st in fn['stmts']:
        if st['kind'] == 'return' and in_scope(src, st['start'], st['end']):
            s, e = trimmed(masked, st['start'] + len('return'), st['end'] - 1)
            # return true/false: bool-const's
            if text[s:e] not in ('', 'true', 'false'):
                yield s, e, '!(' + text[s:e] + ')'


def op_and_or(src, fn):
    for m in body_matches(src, fn, re.compile(r'&&|\|\|')):
        yield m.start(), m.end(), '||' if m.group(0) == '&&' else '&&'


def op_eq_ne(src, fn):
    for m in body_matches(src, fn, re.compile(r'==|!=')):
        yield m.start(), m.end(), '!=' if m.group(0) == '==' else '=='


def split_operands(masked, start, end):
    """The operands of the && and || at the top level of START..END, or
    None if there are fewer than two or the text is no single expression
    (a top-level ',', ';' or '?')."""
    operands, depth, j, last = [], 0, start, start
    while j < end:
        c = masked[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif depth == 0 and c in ',;?':
            return None
        elif depth == 0 and masked[j:j + 2] in ('&&', '||'):
            operands.append(trimmed(masked, last, j))
            last = j = j + 2
            continue
        j += 1
    operands.append(trimmed(masked, last, end))
    return operands if len(operands) > 1 else None


def expression_regions(src, fn):
    """Where compound conditions can be: every parenthesized group of the
    body, every returned value, every assigned value."""
    masked = src['masked']
    for j in range(fn['open'] + 1, fn['close']):
        if masked[j] == '(':
            yield j + 1, matching(masked, j, fn['close'])
    for st in fn['stmts']:
        code = masked[st['start']:st['end'] - 1]
        if st['kind'] == 'return':
            yield st['start'] + len('return'), st['end'] - 1
        elif st['kind'] == 'expr':
            m = re.search(r'(?<![=!<>])=(?!=)', re.sub(r'\([^()]*\)',
                          lambda g: ' ' * len(g.group(0)), code))
            if m:
                yield st['start'] + m.end(), st['end'] - 1


def op_drop_clause(src, fn):
    for start, end in expression_regions(src, fn):
        operands = split_operands(src['masked'], start, end)
        for i, (s, e) in enumerate(operands or ()):
            if not in_scope(src, s, e):
                continue
            if i == 0:
                yield s, operands[1][0], ''
            else:
                yield operands[i - 1][1], e, ''


def is_written(masked, m):
    """Is the identifier matched by M written to (assigned, or the set
    that cap_clear/cap_raise/cap_lower changes)?"""
    return (WRITE_RE.match(masked, m.end()) is not None
            or WRITER_CALL_RE.search(masked, max(0, m.start() - 40), m.start()))


def op_old_new(src, fn):
    masked = src['masked']
    ident = r'(?<!->)(?<!\.)\b%s\b'
    known = {w for w in ('old', 'new')
             if re.search(ident % w, masked[fn['head']:fn['close']])}
    for m in body_matches(src, fn, re.compile(ident % '(old|new)')):
        other = 'new' if m.group(0) == 'old' else 'old'
        # old is a const struct cred *: writing through it does not build
        if other in known and not (other == 'old' and is_written(masked, m)):
            yield m.start(), m.end(), other


def toggle_not(src, m):
    """Negate the call matched by M, or take its negation away."""
    j = m.start() - 1
    while j > 0 and src['masked'][j].isspace():
        j -= 1
    if src['masked'][j] == '!':
        return j, m.start(), ''
    return m.start(), m.start(), '!'


def op_raised(src, fn):
    for m in body_matches(src, fn, re.compile(r'\bcap_raised\b(?=\s*\()')):
        yield toggle_not(src, m)


def op_errno(src, fn):
    for m in body_matches(src, fn, re.compile(r'-\s*(EPERM|EINVAL|ENOMEM)\b')):
        yield m.start(1), m.end(1), ERRNO_SWAP[m.group(1)]


def op_delete_stmt(src, fn):
    text, masked, starts = src['text'], src['masked'], src['starts']
    for st in fn['stmts']:
        s, e = st['start'], st['end']
        if st['kind'] != 'expr' or not in_scope(src, s, e):
            continue
        if st['body']:
            yield s, e, '{ }'
            continue
        ls = starts[line_of(starts, s)]
        le = masked.find('\n', e)
        le = len(text) if le < 0 else le + 1
        if not masked[ls:s].strip() and not masked[e:le].strip():
            yield ls, le, ''
        else:
            while e < len(text) and text[e] in ' \t':
                e += 1
            yield s, e, ''


def op_set_swap(src, fn):
    for m in body_matches(src, fn, re.compile(r'\b(%s)\b' % '|'.join(SETS))):
        for other in SETS:
            if other != m.group(1):
                yield m.start(1), m.end(1), other
    fields = re.compile(r'\.\s*(%s)\b' % '|'.join(AUDIT_FIELDS))
    for m in body_matches(src, fn, fields):
        for other in AUDIT_FIELDS:
            if other != m.group(1):
                yield m.start(1), m.end(1), other


def op_early_return(src, fn):
    if not fn.get('whole') or fn['first'] is None:
        return
    values = {'void': [''], 'bool': [' false', ' true'], 'pointer': [' NULL'],
              'int': [' 0']}[fn['ret']]
    at, text, starts = fn['first'], src['text'], src['starts']
    ls = starts[line_of(starts, at)]
    for value in values:
        if text[ls:at].strip():
            yield at, at, f'return{value}; '
        else:
            yield ls, ls, f'{text[ls:at]}return{value};\n'


def op_off_by_one(src, fn):
    swap = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}
    for m in body_matches(src, fn, re.compile(r'->|<<=?|>>=?|<=|>=|<|>')):
        if m.group(0) in swap:
            yield m.start(), m.end(), swap[m.group(0)]


def op_cap_op(src, fn):
    names = r'\b(%s)\b(?=\s*\()' % '|'.join(CAP_OP_SWAP)
    for m in body_matches(src, fn, re.compile(names)):
        yield m.start(), m.end(), CAP_OP_SWAP[m.group(0)]
    for m in body_matches(src, fn, re.compile(r'\bcap_isclear\b(?=\s*\()')):
        yield toggle_not(src, m)


def op_bool_const(src, fn):
    for m in body_matches(src, fn, re.compile(r'\b(true|false)\b')):
        yield m.start(), m.end(), 'false' if m.group(0) == 'true' else 'true'


OPERATORS = (
    ('negate-cond', op_negate_cond),
    ('and-or', op_and_or),
    ('eq-ne', op_eq_ne),
    ('drop-clause', op_drop_clause),
    ('old-new', op_old_new),
    ('raised', op_raised),
    ('errno', op_errno),
    ('delete-stmt', op_delete_stmt),
    ('set-swap', op_set_swap),
    ('early-return', op_early_return),
    ('off-by-one', op_off_by_one),
    ('cap-op', op_cap_op),
    ('bool-const', op_bool_const),
)


# ---- mutants

def shown(code):
    """CODE on one line, comments dropped, for the patch's first line."""
    return ' '.join(mask(code, strings=False).split())


def occurrence(src, fn, first, lines):
    """How many times LINES (stripped) occur in FN's body above line FIRST."""
    starts, stripped = src['starts'], src['stripped']
    top = line_of(starts, fn['open'])
    n = len(lines)
    return sum(1 for k in range(top, first) if stripped[k:k + n] == lines)


def make_mutant(src, fn, op, edit):
    text, starts = src['text'], src['starts']
    start, end, repl = edit
    first = line_of(starts, start)
    last = line_of(starts, max(start, end - 1))
    a = starts[first]
    b = starts[last + 1] if last + 1 < len(starts) else len(text)
    region = text[a:start] + repl + text[end:b]
    new_lines = [ln for ln in region.splitlines(keepends=True) if ln.strip()]
    mutated = text[:a] + ''.join(new_lines) + text[b:]
    orig = [ln.strip() for ln in text[a:b].splitlines()]
    mut = [ln.strip() for ln in new_lines]
    occ = occurrence(src, fn, first, orig)
    key = '\0'.join([src['path'], fn['name'], '\n'.join(orig), '\n'.join(mut),
                     str(occ)])
    digest = hashlib.sha1(key.encode('utf-8', 'surrogateescape')).hexdigest()
    return {'id': f'{fn["name"]}-{op}-{digest[:8]}', 'op': op,
            'path': src['path'], 'line': first + 1, 'func': fn['name'],
            'orig': shown(text[a:b]), 'mut': shown(''.join(new_lines)),
            'mutated': mutated}


def load_source(tree, base, path):
    text = git(tree, 'show', f'HEAD:{path}').stdout.decode('utf-8', 'surrogateescape')
    masked = mask(text)
    starts = line_starts(text)
    src = {'path': path, 'text': text, 'masked': masked, 'starts': starts,
           'stripped': [ln.strip() for ln in text.split('\n')]}
    funcs = find_functions(masked, starts)
    for fn in funcs:
        parse_body(masked, fn)
    src['mutable'] = mutable_lines(src, funcs, path in WHOLE_FUNCTION_FILES,
                                   added_lines(tree, base, path))
    return src, funcs


def generate(tree, base):
    """All the mutants of the series, the duplicates dropped; how many
    were dropped; the files as they are at HEAD."""
    mutants, seen, dropped, originals = [], set(), 0, {}
    for path in series_files(tree, base):
        src, funcs = load_source(tree, base, path)
        originals[path] = src['text']
        seen.add((path, hashlib.sha1(src['text'].encode(
            'utf-8', 'surrogateescape')).digest()))
        for fn in funcs:
            for op, operator in OPERATORS:
                for edit in operator(src, fn):
                    m = make_mutant(src, fn, op, edit)
                    key = (path, hashlib.sha1(m['mutated'].encode(
                        'utf-8', 'surrogateescape')).digest())
                    if key in seen:
                        dropped += 1
                        continue
                    seen.add(key)
                    mutants.append(m)
    ids = collections.Counter(m['id'] for m in mutants)
    clash = [i for i, n in ids.items() if n > 1]
    if clash:
        sys.exit(f'mutants-generate: two different mutants share an ID: {clash}')
    return mutants, dropped, originals


def sample(mutants, n, seed):
    rank = sorted(mutants, key=lambda m: hashlib.sha1(
        f'{seed}:{m["id"]}'.encode()).hexdigest())
    keep = {m['id'] for m in rank[:n]}
    return [m for m in mutants if m['id'] in keep]


# ---- output

def unified_diff(path, old, new):
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, 'a/' + path, 'b/' + path, n=3):
        out.append(line)
        if not line.endswith('\n'):
            out.append('\n\\ No newline at end of file\n')
    return ''.join(out)


def header(m):
    what = f'`{m["mut"]}`' if m['mut'] else 'nothing'
    return (f'{m["op"]} at {m["path"]}:{m["line"]} in {m["func"]}(): '
            f'`{m["orig"]}` becomes {what} {MARK}.')


def write_patches(outdir, mutants, originals):
    os.makedirs(outdir, exist_ok=True)
    keep = {m['id'] + '.patch' for m in mutants}
    for name in os.listdir(outdir):
        p = os.path.join(outdir, name)
        if name.endswith('.patch') and name not in keep:
            with open(p, encoding='utf-8', errors='replace') as f:
                if MARK in f.readline():
                    os.remove(p)
    for m in mutants:
        diff = unified_diff(m['path'], originals[m['path']], m['mutated'])
        with open(os.path.join(outdir, m['id'] + '.patch'), 'w',
                  encoding='utf-8', errors='surrogateescape') as f:
            f.write(header(m) + '\n\n' + diff)


def blob_id(text):
    data = text.encode('utf-8', 'surrogateescape')
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def bracket_balance(text):
    masked = mask(text)
    return [masked.count(a) - masked.count(b) for a, b in ('()', '[]', '{}')]


def validate(tree, outdir, mutants, paths, originals):
    """Apply every patch to HEAD in a temporary index; the patches that do
    not apply, do not give the mutated file or unbalance brackets."""
    bad = []
    balance = {p: bracket_balance(originals[p]) for p in paths}
    for m in mutants:
        if bracket_balance(m['mutated']) != balance[m['path']]:
            bad.append(f'{m["id"]}.patch: brackets no longer balance')
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, 'index')
        env = dict(os.environ, GIT_INDEX_FILE=index)
        entries = git(tree, 'ls-tree', 'HEAD', '--', *paths).stdout
        subprocess.run(['git', '-C', tree, 'update-index', '--index-info'],
                       input=entries, env=env, check=True)
        with open(index, 'rb') as f:
            pristine = f.read()
        for m in mutants:
            with open(index, 'wb') as f:
                f.write(pristine)
            patch = os.path.abspath(os.path.join(outdir, m['id'] + '.patch'))
            res = git(tree, 'apply', '--cached', patch, env=env, check=False)
            got = git(tree, 'ls-files', '-s', '--', m['path'], env=env).stdout.split()
            if res.returncode or got[1].decode() != blob_id(m['mutated']):
                bad.append(f'{patch}: {res.stderr.decode().strip() or "wrong result"}')
    return bad


def print_counts(mutants, dropped):
    for title, key in (('operator', 'op'), ('function', 'func')):
        counts = collections.Counter(m[key] for m in mutants)
        print(f'per {title}:')
        for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f'  {n:5d}  {name}')
    print(f'total: {len(mutants)} mutants ({dropped} duplicates dropped)')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('tree')
    ap.add_argument('base')
    ap.add_argument('outdir')
    ap.add_argument('--sample', type=int, metavar='N')
    ap.add_argument('--seed', default='0', metavar='S')
    ap.add_argument('--list', action='store_true')
    args = ap.parse_args()

    mutants, dropped, originals = generate(args.tree, args.base)
    if args.sample is not None:
        mutants = sample(mutants, args.sample, args.seed)
    if args.list:
        for m in mutants:
            print(f'{m["id"]}\t{m["op"]}\t{m["path"]}:{m["line"]}\t{m["func"]}')
        return 0
    paths = sorted({m['path'] for m in mutants})
    write_patches(args.outdir, mutants, originals)
    bad = validate(args.tree, args.outdir, mutants, paths, originals)
    print_counts(mutants, dropped)
    for b in bad:
        print(f'mutants-generate: BUG: {b}', file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
