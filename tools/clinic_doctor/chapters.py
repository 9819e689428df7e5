"""The chapters' data: each chapter's doctor.json, which says what points to
it. A new chapter teaches the doctor by being added."""

import json
import re

from . import ROOT, CannotExamine
from .sanitizer import TOOLS

PLACES = TOOLS + ("run", "output", "source", "build")


def chapter_title(readme):
    """The title of a chapter from its README's first line, "# NN · Title"."""
    try:
        first = readme.read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return ""
    return re.sub(r"^#\s*[0-9]+\s*[·.:-]?\s*", "", first).strip()


def validate_sign(sign, at):
    """Raises ValueError naming what is wrong with one sign."""
    if not isinstance(sign, dict) or sign.get("in") not in PLACES:
        raise ValueError(f"{at}: 'in' must be one of {', '.join(PLACES)}")
    if "match" not in sign and "facts" not in sign:
        raise ValueError(f"{at}: needs 'match' or 'facts'")
    try:
        re.compile(sign.get("match", ""))
    except re.error as error:
        raise ValueError(f"{at}: bad regex: {error}") from error
    if not isinstance(sign.get("facts", []), list):
        raise ValueError(f"{at}: 'facts' must be a list")
    if not isinstance(sign.get("score", 1), (int, float)):
        raise ValueError(f"{at}: 'score' must be a number")


def validate(data, where):
    """Raises ValueError naming what is wrong with one doctor.json."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: the file holds no JSON object")
    for key in ("cause", "confirm"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{where}: '{key}' must be a non-empty string")
    signs = data.get("signs", [])
    if not isinstance(signs, list):
        raise ValueError(f"{where}: 'signs' must be a list")
    for i, sign in enumerate(signs):
        validate_sign(sign, f"{where}: signs[{i}]")
    silent = data.get("silent")
    if silent is not None:
        if not isinstance(silent, dict) or not isinstance(
            silent.get("symptom"), str
        ):
            raise ValueError(f"{where}: 'silent' needs a 'symptom' string")


def load_chapters(root=ROOT):
    """Every chapter with a doctor.json, in number order: a dict each."""
    found = []
    folder = root / "chapters"
    if not folder.is_dir():
        return found
    for chapter in sorted(folder.iterdir()):
        match = re.match(r"^([0-9][0-9])-[a-z0-9-]+$", chapter.name)
        data_file = chapter / "doctor.json"
        if not match or not data_file.exists():
            continue
        try:
            data = json.loads(data_file.read_text())
        except (OSError, ValueError) as error:
            raise CannotExamine(f"{data_file}: not valid JSON: {error}")
        try:
            validate(data, str(data_file.relative_to(root)))
        except ValueError as error:
            raise CannotExamine(str(error))
        data["number"] = match.group(1)
        data["folder"] = chapter.name
        data["title"] = chapter_title(chapter / "README.md") or chapter.name
        data["readme"] = f"chapters/{chapter.name}/README.md"
        data["page"] = f"ch{match.group(1)}.html"
        found.append(data)
    return found
