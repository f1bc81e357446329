"""Build and run freestanding C99 programs on MCU targets under emulators.

Each target is described by ``targets/<name>.toml`` (toolchain, flags, port
shim, emulator); ``targets/README.md`` explains the layout. Typical use::

    t = get_target("cortex-m4")
    ok, why = t.available()
    elf = build(t, ["bench.c", "../csrc/foo.c"], ["../csrc"], {"N": 100}, "build/m4")
    r = run(t, elf, count=True)   # RunResult(lines, exit_code, region_counts)

A program includes "fxdp_port.h" and defines ``int main(void)``; the port's
startup calls main and exits with its return value. ``region_counts`` are
the instructions (QEMU, host under callgrind) or cycles (AVR) between
consecutive ``port_mark()`` calls.

Stdlib only; imports no other fxdp module.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

__all__ = [
    "Target", "RunResult", "TargetError", "TargetTimeout",
    "list_targets", "get_target", "build", "run", "size", "targets_dir",
]

# Applied to user sources on every target: the code must be strict C99.
STRICT_CFLAGS = ("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wconversion", "-Werror")
# Port shims are strict C99 as the library (GCC's double-underscore keywords
# __asm__ and __attribute__ and register asm variables are accepted by
# -pedantic; the objects are identical to the former gnu99 build); the
# loop-pattern flag keeps mem.c's loops from becoming calls to memset/
# memcpy, and no-ipa-icf keeps port_mark from being folded with another
# function of identical body.
PORT_CFLAGS = (*STRICT_CFLAGS, "-fno-tree-loop-distribute-patterns", "-fno-ipa-icf")
COMMON_CFLAGS = ("-ffunction-sections", "-fdata-sections")
COMMON_LDFLAGS = ("-Wl,--gc-sections",)


class TargetError(RuntimeError):
    """A build failed, a tool is missing, or the emulator failed."""


class TargetTimeout(TargetError):
    """The program did not finish within the timeout."""


def targets_dir() -> Path:
    """Directory holding the target descriptions: ``$FXDP_TARGETS_DIR``, else
    the source checkout's targets/ next to fxdp/, else the copy shipped in an
    installed package (fxdp/target_files/, see setup.py), else a targets/ in
    the current directory or a parent."""
    env = os.environ.get("FXDP_TARGETS_DIR")
    if env:
        return Path(env)
    shipped = Path(__file__).resolve().parent / "target_files"
    if (Path(__file__).resolve().parent.parent / "targets" / "host.toml").is_file():
        return Path(__file__).resolve().parent.parent / "targets"
    if (shipped / "host.toml").is_file():
        return shipped
    cwd = Path.cwd().resolve()
    for base in (Path(__file__).resolve().parent.parent, cwd, *cwd.parents):
        if (base / "targets" / "host.toml").is_file():
            return base / "targets"
    raise TargetError("cannot find the targets/ directory of the fxdp repository;"
                      " set FXDP_TARGETS_DIR")


def _cache_dir() -> Path:
    env = os.environ.get("FXDP_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "fxdp"


def _have(what: str) -> bool:
    """`what` is an absolute file path or a program name looked up on PATH."""
    return Path(what).exists() if os.path.isabs(what) else shutil.which(what) is not None


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    int_bits: int
    hw_multiply: bool
    hw_divide: bool
    prefix: str                 # toolchain prefix, e.g. "arm-none-eabi-"
    cflags: tuple[str, ...]     # cpu/arch flags, for user sources and port shim
    ldflags: tuple[str, ...]
    libs: tuple[str, ...]
    port_sources: tuple[Path, ...]
    emulator: Mapping[str, object] = field(repr=False)
    requires: Mapping[str, str] = field(repr=False)        # program/file -> Debian package
    requires_count: Mapping[str, str] = field(repr=False)  # extra, for count=True
    count_unit: str = "instructions"

    @property
    def kind(self) -> str:
        """Emulator kind: "qemu", "simavr" or "native"."""
        return str(self.emulator["kind"])

    def tool(self, tool: str) -> str:
        """Toolchain program name, e.g. tool("gcc") -> "arm-none-eabi-gcc"."""
        return self.prefix + tool

    @property
    def packages(self) -> list[str]:
        """Debian packages needed to build, run and count on this target."""
        return sorted(set(self.requires.values()) | set(self.requires_count.values()))

    def available(self, count: bool = True) -> tuple[bool, str]:
        """(True, "") if everything needed is installed, else (False, what is missing).

        With count=True (default) the tools for region counts are checked too.
        """
        needs = dict(self.requires)
        if count:
            needs.update(self.requires_count)
        missing = [(w, p) for w, p in needs.items() if not _have(w)]
        if not missing:
            return True, ""
        pkgs = sorted({p for _, p in missing})
        return False, (f"target {self.name}: missing {', '.join(w for w, _ in missing)}"
                       f" (apt-get install {' '.join(pkgs)})")

    def _require(self, count: bool) -> None:
        ok, why = self.available(count)
        if not ok:
            raise TargetError(why)


@dataclass
class RunResult:
    lines: list[str]                  # output text lines, without line ends
    exit_code: int
    region_counts: list[int] | None   # None unless run(..., count=True)
    stderr: str = ""                  # emulator diagnostics, for error reports


def _load(path: Path) -> Target:
    with open(path, "rb") as f:
        d = tomllib.load(f)
    tdir = targets_dir()
    sub = lambda xs: tuple(str(x).replace("{targets}", str(tdir)) for x in xs)  # noqa: E731
    missing = [k for k in ("name", "description", "int_bits", "hw_multiply", "hw_divide",
                           "toolchain", "emulator", "port") if k not in d]
    missing += [f"toolchain.{k}" for k in ("prefix",) if k not in d.get("toolchain", {})]
    missing += [f"port.{k}" for k in ("sources",) if k not in d.get("port", {})]
    if missing:
        raise ValueError(f"target description {path} lacks {', '.join(missing)} (see docs/porting.md)")
    tc, em = d["toolchain"], d["emulator"]
    return Target(
        name=d["name"], description=d["description"], int_bits=int(d["int_bits"]),
        hw_multiply=bool(d["hw_multiply"]), hw_divide=bool(d["hw_divide"]),
        prefix=tc["prefix"], cflags=sub(tc.get("cflags", [])), ldflags=sub(tc.get("ldflags", [])),
        libs=tuple(tc.get("libs", [])),
        port_sources=tuple(tdir / s for s in d["port"]["sources"]),
        emulator=em, requires=d.get("requires", {}), requires_count=d.get("requires_count", {}),
        count_unit=em.get("count_unit", "instructions"),
    )


def list_targets() -> list[Target]:
    """All targets described in targets/*.toml, sorted by name."""
    return [_load(p) for p in sorted(targets_dir().glob("*.toml"))]


def get_target(name: str | Target) -> Target:
    if isinstance(name, Target):
        return name
    path = targets_dir() / f"{name}.toml"
    if not path.is_file():
        valid = ", ".join(t.name for t in list_targets())
        raise ValueError(f"unknown target {name!r}; valid targets: {valid}")
    return _load(path)


def _run_tool(argv: list[str], what: str, cwd: Path | None = None) -> None:
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise TargetError(f"{what} failed (exit {p.returncode}):\n$ {' '.join(argv)}\n"
                          f"{p.stdout}{p.stderr}")


def build(target: str | Target, sources: Iterable[str | os.PathLike], include_dirs: Iterable[str | os.PathLike] = (),
          defines: Mapping[str, object] | None = None, out_dir: str | os.PathLike | None = None,
          opt: str = "-Os", extra_cflags: Iterable[str] = (), name: str | None = None) -> Path:
    """Compile `sources` (strict C99) with the target's port shim; return the ELF path.

    defines: {"N": 10, "FLAG": None} -> -DN=10 -DFLAG. The ELF is
    out_dir/<name>.elf, name defaulting to the first source's stem; out_dir
    defaults to a fresh temporary directory.  With FXDP_OBJECT_CACHE set to a folder, each object
    is taken from there when the same compiler compiled the same file (and headers) with the same
    flags before, and stored there otherwise; the ELF is byte for byte the one built without it.
    """
    t = get_target(target)
    t._require(count=False)
    sources = [Path(s).resolve() for s in sources]
    if not sources:
        raise ValueError("build() needs at least one source")
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix=f"fxdp-{t.name}-"))
    out.mkdir(parents=True, exist_ok=True)
    out = out.resolve()
    name = name or sources[0].stem
    elf = out / f"{name}.elf"
    incs = [f"-I{Path(d).resolve()}" for d in include_dirs]
    incs.append(f"-I{targets_dir() / 'port' / 'include'}")
    defs = [f"-D{k}" if v is None or v is True else f"-D{k}={v}" for k, v in (defines or {}).items()]
    cc = t.tool("gcc")
    target_flags = [*t.cflags, *COMMON_CFLAGS, opt]

    # Port objects go to their own directory per ELF (builds may run in parallel).
    port_dir = out / f"{name}.port"
    port_dir.mkdir(exist_ok=True)
    port_objs = [port_dir / f"{i}_{s.stem}.o" for i, s in enumerate(t.port_sources)]
    port_flags = [*PORT_CFLAGS, *target_flags, *incs, *defs]
    lib_flags = [*STRICT_CFLAGS, *target_flags, *extra_cflags, *incs, *defs]
    cache = os.environ.get("FXDP_OBJECT_CACHE")
    # no cache for a build with an include option the key's header search does not follow, or
    # with coverage or profile data (written beside each object, which the cache would move)
    if cache and not any(f.startswith(("-iquote", "-isystem", "-idirafter", "-include", "-imacros", "-nostdinc", "@",
                                       "--coverage", "-fprofile", "-ftest-coverage"))
                         for f in lib_flags):
        inc_dirs = [Path(d).resolve() for d in include_dirs] + [targets_dir() / "port" / "include"]
        port_objs = _cached_objects(cc, port_flags, list(t.port_sources), inc_dirs, Path(cache), out,
                                    f"{t.name}: compiling the port")
        objs = _cached_objects(cc, lib_flags, sources, inc_dirs, Path(cache), out, f"{t.name}: build")
        _run_tool([cc, *lib_flags, *map(str, objs), *map(str, port_objs),
                   *t.ldflags, *COMMON_LDFLAGS, *t.libs, "-o", str(elf)], f"{t.name}: build")
        return elf
    for src, obj in zip(t.port_sources, port_objs):
        _run_tool([cc, *port_flags, "-c", str(src), "-o", str(obj)], f"{t.name}: compiling port {src.name}")
    _run_tool([cc, *lib_flags, *map(str, sources), *map(str, port_objs),
               *t.ldflags, *COMMON_LDFLAGS, *t.libs, "-o", str(elf)],
              f"{t.name}: build")
    return elf


_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)


def _source_key(src: Path, inc_dirs: list[Path], path_matters: bool) -> bytes | None:
    """The bytes of src and of every header it may include, found as the compiler would (a
    quoted name in the including file's folder first, then the -I folders), each #include line
    followed whatever #if surrounds it.  A name found in no folder is the toolchain's (<stdint.h>):
    the compiler's identity covers it.  A file's path is part of the key when it uses __FILE__ or
    when path_matters (debug information names it).  None if a file cannot be read."""
    seen, todo, parts = set(), [src], []
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        try:
            text = f.read_bytes()
        except OSError:
            return None
        # the path only where it can reach the object: the export copies the same library files
        # into every export's folder, and an object compiled from one copy serves them all
        parts += [str(f).encode() if path_matters or b"__FILE__" in text else b"", text]
        for kind, name in _INCLUDE_RE.findall(text):
            where = ([f.parent] if kind == b'"' else []) + inc_dirs
            hit = next((d / name.decode() for d in where if (d / name.decode()).is_file()), None)
            if hit is not None:
                todo.append(hit.resolve())
    return b"\0".join(parts)


def _cached_objects(cc: str, flags: list[str], sources: list[Path], inc_dirs: list[Path], cache: Path,
                    out: Path, what: str) -> list[Path]:
    """The objects of `sources` compiled with `flags`, from `cache` where the same compiler
    compiled the same text with the same flags before (FXDP_OBJECT_CACHE; the test suite builds
    the same library files for dozens of exports).  The key: the compiler binary (path, size,
    mtime), the flags, and each file's bytes with its headers' (_source_key).  The misses are
    compiled by one compiler run (one per batch of distinct file names)."""
    exe = shutil.which(cc) or cc
    st = os.stat(exe)
    # the folders searched are not in the key (each export has its own): the headers found in them are
    head = "\0".join([exe, str(st.st_size), str(st.st_mtime_ns), *(f for f in flags if not f.startswith("-I"))]).encode()
    path_matters = any(f.startswith("-g") for f in flags)     # debug information names the source
    objs, miss = [], []
    for src in sources:
        key = _source_key(Path(src), inc_dirs, path_matters)
        if key is None:
            obj = None
        else:
            digest = hashlib.sha256(head + b"\0\0" + key).hexdigest()[:32]
            obj = cache / f"{Path(src).stem}-{digest}.o"
        objs.append(obj)
        if obj is None or not obj.is_file():
            miss.append(len(objs) - 1)
    while miss:                             # one compiler run per batch of distinct file names
        batch, stems, later = [], set(), []
        for i in miss:
            stem = Path(sources[i]).stem
            (later if stem in stems else batch).append(i)
            stems.add(stem)
        work = Path(tempfile.mkdtemp(prefix=".objs-", dir=out))
        _run_tool([cc, *flags, "-c", *[str(Path(sources[i]).resolve()) for i in batch]], what, cwd=work)
        for i in batch:
            got = work / f"{Path(sources[i]).stem}.o"
            if objs[i] is None:
                objs[i] = got
            else:
                cache.mkdir(parents=True, exist_ok=True)
                os.replace(got, objs[i])        # atomic: parallel builds may race for one object
        miss = later
    return objs


def size(target: str | Target, elf: str | os.PathLike) -> dict[str, int]:
    """Section sizes in bytes from the toolchain's `size -A`: text (code and
    read-only data, incl. vectors), data (initialised RAM; also stored in
    flash) and bss. Flash use = text + data, static RAM = data + bss."""
    t = get_target(target)
    p = subprocess.run([t.tool("size"), "-A", str(elf)], capture_output=True, text=True)
    if p.returncode != 0:
        raise TargetError(f"{t.tool('size')} -A {elf} failed: {p.stderr}")
    res = {"text": 0, "data": 0, "bss": 0}
    skip = (".comment", ".debug", ".note", ".ARM.attributes", ".riscv.attributes", ".mmcu",
            ".stab", ".gnu_debug", ".symtab", ".strtab", ".shstrtab")
    for line in p.stdout.splitlines()[2:]:
        parts = line.split()
        if len(parts) != 3 or not parts[1].isdigit() or parts[0] == "Total":
            continue
        sec, n = parts[0], int(parts[1])
        if sec.startswith(skip):
            continue
        if sec.startswith((".bss", ".sbss", ".tbss", ".noinit")):
            res["bss"] += n
        elif sec.startswith((".data", ".sdata", ".tdata", ".got", ".init_array", ".fini_array", ".dynamic")):
            res["data"] += n
        else:
            res["text"] += n
    return res


# --- helper programs built on first use and cached -------------------------

def _helper(src_name: str, flags: list[str], suffix: str = "") -> Path:
    """Build targets/tools/<src_name> with the host gcc into the cache,
    keyed by a hash of source and flags; atomic rename makes it safe to race."""
    src = targets_dir() / "tools" / src_name
    key = hashlib.sha256(src.read_bytes() + repr(flags).encode()).hexdigest()[:16]
    dst = _cache_dir() / f"{Path(src_name).stem}-{key}{suffix}"
    if dst.exists():
        return dst
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, suffix=suffix)
    os.close(fd)
    try:
        argv = ["gcc", "-O2", "-Wall", "-Wextra", "-o", tmp, str(src), *flags]
        _run_tool(argv, f"building {src_name}")
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dst


def qemu_plugin() -> Path:
    """Path to the QEMU instruction-count plugin (.so), built on first use."""
    return _helper("qemu_mark_plugin.c", ["-shared", "-fPIC"], ".so")


def simavr_harness() -> Path:
    """Path to the libsimavr runner, built on first use."""
    return _helper("simavr_run.c", ["-I/usr/include/simavr", "-lsimavr", "-lelf"])


def _symbol(t: Target, elf: Path, sym: str) -> int | None:
    """Address of `sym` in `elf`, or None (e.g. dropped by --gc-sections)."""
    p = subprocess.run([t.tool("nm"), str(elf)], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == sym:
            return int(parts[0], 16) & ~1    # clear the Thumb bit
    return None


# --- running ----------------------------------------------------------------

def _lines(raw: bytes) -> list[str]:
    return raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").splitlines()


def run(target: str | Target, elf: str | os.PathLike, timeout: float = 60.0,
        count: bool = False) -> RunResult:
    """Run `elf` on the target's emulator; return its output lines, exit code
    and (count=True) the region counts between consecutive port_mark() calls.

    Raises TargetTimeout if it does not finish within `timeout` seconds, and
    TargetError if the emulator fails or the program never reaches port_exit.
    """
    t = get_target(target)
    t._require(count)
    elf = Path(elf).resolve()
    if not elf.is_file():
        raise TargetError(f"no such program: {elf}")
    with tempfile.TemporaryDirectory(prefix=f"fxdp-run-{t.name}-") as tmp:
        tmp = Path(tmp)
        result = tmp / "result"
        subst = {"{elf}": str(elf), "{result}": str(result),
                 "{mcu}": str(t.emulator.get("mcu", "")), "{frequency}": str(t.emulator.get("frequency", ""))}
        if t.kind == "simavr":
            subst["{simavr_run}"] = str(simavr_harness())
        argv = [subst.get(a, a) for a in t.emulator["command"]]
        env = None
        # A program that never calls port_mark has none linked in: no regions.
        mark = _symbol(t, elf, "port_mark") if count and t.kind == "qemu" else None
        if mark is not None:
            argv += ["-plugin", f"{qemu_plugin()},mark={mark:#x},out={result}"]
        elif count and t.kind == "native":
            argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
                    "--dump-instr=no", "--compress-strings=no", *argv]
            env = dict(os.environ, LD_BIND_NOW="1")
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout, env=env)
        except subprocess.TimeoutExpired as e:
            tail = "\n".join(_lines(e.stdout or b"")[-5:])
            raise TargetTimeout(f"{t.name}: {elf.name} did not finish within {timeout} s;"
                                f" last output:\n{tail}") from None
        stderr = p.stderr.decode("utf-8", "replace")
        lines = _lines(p.stdout)

        def fail(why: str) -> TargetError:
            tail = "\n".join(lines[-5:])
            return TargetError(f"{t.name}: {elf.name}: {why}\n$ {' '.join(argv)}\n"
                               f"stderr:\n{stderr}\nlast output:\n{tail}")

        if p.returncode < 0:
            raise fail(f"killed by signal {-p.returncode}")
        counts: list[int] | None = None
        if t.kind == "simavr":
            # The harness's exit status only says whether port_exit was reached;
            # the program's code is in the result file.
            if not result.exists():
                raise fail(f"simavr harness failed (exit {p.returncode})")
            res = result.read_text().split("\n")
            code = int(res[0].split()[1])
            if code < 0:
                raise fail(f"program stopped without port_exit (simavr state: {res[1].split()[1]})")
            exit_code = code
            if count:
                counts = [int(x) for x in res[3:] if x]
        else:
            exit_code = p.returncode
            if t.kind == "qemu":
                # QEMU's own errors (bad machine, plugin failure) look like exit 1.
                prog = Path(argv[0]).name
                if any(ln.startswith(f"{prog}:") for ln in stderr.splitlines()):
                    raise fail(f"emulator error (exit {p.returncode})")
                if mark is not None:
                    if not result.exists():
                        raise fail("QEMU plugin wrote no counts")
                    counts = [int(x) for x in result.read_text().split("\n")[1:] if x]
                elif count:
                    counts = []
            elif count:
                # Dump k (cg.out.k) holds the instructions since dump k-1;
                # dump 1 is start-up to the first mark; cg.out is the final dump.
                dumps = sorted(tmp.glob("cg.out.*"), key=lambda f: int(f.suffix[1:]))
                counts = []
                for f in dumps[1:]:
                    tot = [ln for ln in f.read_text().splitlines() if ln.startswith("totals:")]
                    counts.append(int(tot[0].split()[1]) if tot else 0)
        return RunResult(lines=lines, exit_code=exit_code, region_counts=counts, stderr=stderr)


if __name__ == "__main__":
    # python -m fxdp.targets: list the targets and whether their tools are installed.
    for _t in list_targets():
        _ok, _why = _t.available()
        print(f"{_t.name:16} {'ok' if _ok else _why:8}  {_t.description}")
