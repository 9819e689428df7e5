"""The clinic doctor, as a package: run a CUDA program several ways and name
the chapter of the Clinic that explains what went wrong.

Modules: runs (the process runner, shared with the exercise tool and the test
driver), sanitizer (compute-sanitizer's options and runs), reports (parsing
its reports), program (what the command is), environment (driver and GPU),
evidence (facts from the plain, blocking and repeated runs), chapters (each
chapter's doctor.json), trace and rules (the CUDA API trace and the rules
read from it), ranking (findings to chapters), examine (the examination),
report (text and JSON) and cli (the command line). tools/clinic-doctor is
the entry point. Standard library only, like every tool of the Clinic.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NO_FINDING, FINDINGS, CANNOT_EXAMINE = 0, 1, 2


class CannotExamine(Exception):
    """The program cannot be examined here; the message says why."""
