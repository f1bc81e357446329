"""Regenerate the images the guides embed (docs/img/*.png): run each guide's examples
(tests/test_doc_examples.py's runner) in a fresh directory and copy the images its
`fxdp plot ... --out img/NAME.png` commands wrote into docs/img/.  The tests check that each
committed image is what its command makes (a PNG of the same size, with ink in its data area).

    python3 tools/doc_images.py
"""
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_doc_examples import PAGES, images, run_page  # noqa: E402


def main():
    for page in PAGES:
        wanted = images(page)
        if not wanted:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            run_page(page, Path(tmp))
            for _, rel, _ in wanted:
                dst = ROOT / "docs" / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(tmp) / "work" / rel, dst)
                print(f"{page}: {rel} ({dst.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
