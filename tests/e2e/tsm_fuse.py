#!/usr/bin/env python3
"""A fake Linux configfs-tsm report directory (Documentation/ABI/testing/configfs-tsm),
as a FUSE file system, for tests/e2e/suite_snp_tsm.sh: mkdir makes a report entry with
the attributes `provider` (--provider, e.g. sev_guest), `inblob` (write: the 64 bytes of
report data), `generation` (read: the number of writes to inblob), `outblob` (read: the
evidence: the bytes of --outblob, the same whatever was written -- a recorded report, so
that the real verification path runs against real AMD signatures) and `auxblob` (empty);
rmdir removes it. Every operation is appended to --log. Runs in the foreground until
unmounted (fusermount -u)."""
import argparse
import errno
import stat
import threading
import time

from fusepy import FUSE, FuseOSError, Operations

ap = argparse.ArgumentParser()
ap.add_argument("mountpoint")
ap.add_argument("--provider", required=True)
ap.add_argument("--outblob", required=True)
ap.add_argument("--log", required=True)
args = ap.parse_args()
with open(args.outblob, "rb") as f:
    OUT = f.read()
FILES = ("provider", "inblob", "outblob", "generation", "auxblob")


class Tsm(Operations):
    def __init__(self):
        self.mu = threading.Lock()
        self.entries = {}  # name -> {"inblob": bytes, "generation": int}
        self.now = time.time()

    def _log(self, what):
        with open(args.log, "a") as f:
            f.write(what + "\n")

    def _split(self, path):
        parts = [p for p in path.split("/") if p]
        if len(parts) > 2:
            raise FuseOSError(errno.ENOENT)
        return parts

    def _content(self, entry, name):
        if name == "provider":
            return (args.provider + "\n").encode()
        if name == "generation":
            return ("%d\n" % entry["generation"]).encode()
        if name == "outblob":
            return OUT if entry["inblob"] else b""
        return b""

    def getattr(self, path, fh=None):
        parts = self._split(path)
        base = dict(st_uid=0, st_gid=0, st_atime=self.now, st_mtime=self.now, st_ctime=self.now)
        with self.mu:
            if not parts:
                return dict(base, st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
            entry = self.entries.get(parts[0])
            if entry is None:
                raise FuseOSError(errno.ENOENT)
            if len(parts) == 1:
                return dict(base, st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
            if parts[1] not in FILES:
                raise FuseOSError(errno.ENOENT)
            mode = 0o200 if parts[1] == "inblob" else 0o444
            size = len(self._content(entry, parts[1]))
            return dict(base, st_mode=stat.S_IFREG | mode, st_nlink=1, st_size=size)

    def readdir(self, path, fh):
        parts = self._split(path)
        with self.mu:
            if not parts:
                return [".", ".."] + list(self.entries)
            if parts[0] not in self.entries or len(parts) != 1:
                raise FuseOSError(errno.ENOTDIR)
            return [".", ".."] + list(FILES)

    def mkdir(self, path, mode):
        parts = self._split(path)
        if len(parts) != 1:
            raise FuseOSError(errno.EPERM)
        with self.mu:
            if parts[0] in self.entries:
                raise FuseOSError(errno.EEXIST)
            self.entries[parts[0]] = {"inblob": b"", "generation": 0}
        self._log("mkdir " + parts[0])

    def rmdir(self, path):
        parts = self._split(path)
        with self.mu:
            if len(parts) != 1 or self.entries.pop(parts[0], None) is None:
                raise FuseOSError(errno.ENOENT)
        self._log("rmdir " + parts[0])

    def open(self, path, flags):
        self.getattr(path)
        return 0

    def truncate(self, path, length, fh=None):
        return 0

    def read(self, path, size, offset, fh):
        parts = self._split(path)
        with self.mu:
            entry = self.entries.get(parts[0])
            if entry is None or len(parts) != 2:
                raise FuseOSError(errno.ENOENT)
            data = self._content(entry, parts[1])
        if parts[1] == "outblob" and offset == 0:
            self._log("read outblob %s (%d bytes)" % (parts[0], len(data)))
        return data[offset:offset + size]

    def write(self, path, data, offset, fh):
        parts = self._split(path)
        if len(parts) != 2 or parts[1] != "inblob":
            raise FuseOSError(errno.EACCES)
        if offset + len(data) > 64:
            raise FuseOSError(errno.EINVAL)
        with self.mu:
            entry = self.entries.get(parts[0])
            if entry is None:
                raise FuseOSError(errno.ENOENT)
            entry["inblob"] = bytes(data)
            entry["generation"] += 1
        self._log("write inblob %s %s" % (parts[0], bytes(data).hex()))
        return len(data)


FUSE(Tsm(), args.mountpoint, foreground=True, nothreads=False)
