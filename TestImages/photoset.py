"""What the generated photo sets (aztecphotos.py, dmpdfphotos.py) share: their truth file, and
Seer's readings of every photo in one `seer scan` process."""
import json
import os
import subprocess


def write_truth(out, truth):
    """Writes `truth` (file name -> what was drawn) as out/truth.json."""
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


def read(out, seer, preset, symbologies):
    """(file names in order, truth, texts Seer read per file name) for the set in `out`."""
    truth = json.load(open(os.path.join(out, "truth.json")))
    names = sorted(truth)
    result = subprocess.run([seer, "scan", "--format", "json", "--jobs", "1", "--preset", preset,
                             "--symbologies", symbologies] + [os.path.join(out, n) for n in names],
                            capture_output=True, text=True).stdout
    texts = {}
    for line in result.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        texts[os.path.basename(o.get("file", ""))] = [s.get("text") for s in o.get("symbols", [])]
    return names, truth, texts
