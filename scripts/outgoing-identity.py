#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check the sender's identity in every outgoing message.

    outgoing-identity.py 'NAME <EMAIL>' PLACEHOLDER MESSAGE...

As git format-patch and b4 do it: every message is From: the sender; a
patch carries an in-body From: only when its author is not the sender;
the sender signs off every patch last; and the placeholder identity the
repository's patches carry appears nowhere. Headers are compared decoded
(RFC 2047), so a name with quotes, accents, '&' or a backslash is checked
as the reader's mail client shows it.
"""
import email
import email.policy
import email.utils
import sys


def split_ident(ident):
    """'Name <addr>' -> ('Name', 'addr'), exactly as typed (no unquoting)."""
    name, _, rest = ident.rpartition(' <')
    return name, rest.rstrip('>')


def body_lines(msg):
    part = msg.get_body(preferencelist=('plain',))
    return part.get_content().splitlines()


def check(ident, placeholder, path, problems):
    with open(path, 'rb') as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    name, addr = split_ident(ident)
    p_name, p_addr = split_ident(placeholder)

    def bad(what):
        problems.append(f'{path}: {what}')

    got = email.utils.parseaddr(str(msg['From']))
    if got != (name, addr):
        bad(f'From: header is {got!r}, want {(name, addr)!r}')
    for key in ('To', 'Cc'):
        for n, a in email.utils.getaddresses([str(v) for v in msg.get_all(key, [])]):
            if a == addr and n != name:
                bad(f'{key}: names the sender as {n!r}, want {name!r}')

    lines = body_lines(msg)
    text = '\n'.join(str(v) for v in msg.values()) + '\n' + '\n'.join(lines)
    if ident != placeholder:
        for word in (p_name, p_addr):
            if word in text:
                bad(f'the placeholder {word!r} is still in the message')

    is_cover = '/' in msg['Subject'] and msg['Subject'].split('/')[0].endswith(' 0')
    if is_cover:
        return
    # An in-body From: is the first body line; b4 writes it only for a
    # commit whose author is not the sender (outgoing-check.sh compares
    # the authors with the branch's).
    if lines and lines[0].startswith('From: '):
        if email.utils.parseaddr(lines[0][6:])[1] == addr:
            bad(f'in-body {lines[0]!r}, though the sender is the author')
    sobs = [ln for ln in lines if ln.startswith('Signed-off-by: ')]
    if not sobs or sobs[-1] != f'Signed-off-by: {ident}':
        last = sobs[-1] if sobs else 'none'
        bad(f'the last sign-off is {last!r}, want {"Signed-off-by: " + ident!r}')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ident, placeholder, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems = []
    for path in paths:
        check(ident, placeholder, path, problems)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'identity: {len(paths)} messages From: {ident}, signed off by it, '
          'no in-body From: of the sender, no placeholder')


if __name__ == '__main__':
    main()
