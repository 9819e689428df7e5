#!/usr/bin/env python3
"""Unit tests of check_csv.py's P2P rows (the copy lab's copies from device 0
to device 1): the recorded results, with P2P rows added or planted wrong, must
pass or fail as each test says. No GPU needed; the test bench.check_csv.unit
(labels cpu, harness) runs this file. The rest of the checker is tested by
the harness self-test (tests/selftest/selftest.py --part lab)."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_csv  # noqa: E402

RESULTS = os.path.join(HERE, "results")
SIZES = (4096, 65536, 1048576, 16777216, 268435456)  # bandwidth's P2P sizes
ALL = check_csv.PEER_PATHS
NO_PEER_ON = ALL[:2]


def p2p_row(path, size, gbps=20.0, data_ok="1", fraction=""):
    """A P2P row as bandwidth writes it (the recorded link, no share)."""
    ms = size / (gbps * 1e6) if gbps else 0.0
    return "P2P,%s,%d,21,%.6f,%.6f,%.6f,%.3f,63.015,%s,%s" % (
        path, size, ms, ms, ms, gbps, fraction, data_ok)


def p2p_rows(paths=ALL, sizes=SIZES):
    return [p2p_row(p, s) for p in paths for s in sizes]


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="check_csv_test_")
        self.addCleanup(shutil.rmtree, self.dir)
        with open(os.path.join(RESULTS, "bandwidth.csv")) as f:
            self.recorded = f.read().splitlines()

    def write(self, extra, name="bandwidth.csv"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("\n".join(self.recorded + list(extra)) + "\n")
        return path

    def check(self, extra, said=None):
        """check_bandwidth() on the recorded rows plus `extra`; its
        printing is kept out of the test's output."""
        with contextlib.redirect_stdout(io.StringIO()):
            check_csv.check_bandwidth(self.write(extra), said)

    def fails(self, extra, said=None, why=""):
        with self.assertRaises(check_csv.Fail) as caught:
            self.check(extra, said)
        self.assertIn(why, str(caught.exception))


class PeerRows(Base):
    def test_recorded_results_without_p2p_rows_pass(self):
        self.check([])
        self.check([], said=())

    def test_all_three_paths_pass(self):
        self.check(p2p_rows())
        self.check(p2p_rows(), said=ALL)

    def test_without_peer_access_peer_on_is_left_out(self):
        self.check(p2p_rows(NO_PEER_ON))
        self.check(p2p_rows(NO_PEER_ON), said=NO_PEER_ON)

    def test_rows_must_be_what_the_output_said(self):
        self.fails(p2p_rows(), said=(), why="as the program's output said")
        self.fails([], said=ALL, why="as the program's output said")
        self.fails(p2p_rows(NO_PEER_ON), said=ALL, why="P2P rows for")
        self.fails(p2p_rows(), said=NO_PEER_ON, why="P2P rows for")

    def test_peer_on_alone_or_a_path_missing_fails(self):
        self.fails(p2p_rows(("peer-on",)), why="P2P rows for peer-on")
        self.fails(p2p_rows(("peer-off", "peer-on")), why="P2P rows for")
        self.fails(p2p_rows(("staged",)), why="P2P rows for")

    def test_wrong_data_fails(self):
        rows = p2p_rows()
        rows[7] = p2p_row("staged", SIZES[2], data_ok="0")
        self.fails(rows, why="the copied data were wrong")

    def test_figures_must_be_positive(self):
        rows = p2p_rows()
        rows[0] = p2p_row("peer-off", SIZES[0], gbps=0)
        self.fails(rows, why="not above zero")

    def test_figures_must_be_numbers(self):
        rows = p2p_rows()
        rows[1] = rows[1].replace(",21,", ",-21,")
        self.fails(rows, why="reps is '-21'")

    def test_no_share_of_the_link(self):
        rows = p2p_rows()
        rows[3] = p2p_row("peer-on", SIZES[3], fraction="0.3")
        self.fails(rows, why="a link_fraction without a link")

    def test_unknown_path_fails(self):
        self.fails(p2p_rows() + [p2p_row("peer", SIZES[0])],
                   why="direction/memory 'P2P peer'")

    def test_sizes_must_match_between_paths(self):
        rows = [r for r in p2p_rows() if not r.startswith(
            "P2P,staged,65536,")]
        self.fails(rows, why="P2P staged has sizes")

    def test_sizes_must_be_the_labs_and_reach_the_largest(self):
        self.fails(p2p_rows(sizes=SIZES[:-1]), why="lack the largest")
        self.fails(p2p_rows(sizes=SIZES + (12288,)),
                   why="are not among the other sizes")

    def test_a_row_twice_fails(self):
        self.fails(p2p_rows() + [p2p_row("staged", SIZES[1])],
                   why="appears twice")


class OutputLine(unittest.TestCase):
    """peer_paths_said() reads the three lines bandwidth prints."""

    def test_lines(self):
        said = check_csv.peer_paths_said
        self.assertEqual(said(
            "GPU: x\nPeer copies (P2P): skipped, they need 2 GPUs, the host "
            "has 1\n"), ())
        self.assertEqual(said(
            "Peer copies (P2P): device 0 to device 1; peer access not "
            "possible (cudaDeviceCanAccessPeer: 0 for 0 to 1, 0 for 1 to "
            "0), so no peer-on row\n"), NO_PEER_ON)
        self.assertEqual(said(
            "Peer copies (P2P): device 0 to device 1; peer access possible "
            "both ways\n"), ALL)
        self.assertIsNone(said("Copy lab: bandwidth\nGPU: x\n"))


class RecordedFolder(Base):
    """check_dir() holds the CSV to the table recorded beside it."""

    def run_dir(self, extra, table):
        self.write(extra)
        for name in ("overlap.csv", "overlap-timeline.csv"):
            shutil.copy(os.path.join(RESULTS, name), self.dir)
        with open(os.path.join(self.dir, "bandwidth.txt"), "w") as f:
            f.write(table)
        with contextlib.redirect_stdout(io.StringIO()):
            check_csv.check_dir(self.dir, False)

    def test_table_and_csv_agree(self):
        self.run_dir(p2p_rows(), "Peer copies (P2P): device 0 to device 1; "
                     "peer access possible both ways\n")
        self.run_dir([], "an older table, without the line\n")

    def test_table_and_csv_disagree(self):
        with self.assertRaises(check_csv.Fail):
            self.run_dir(p2p_rows(), "Peer copies (P2P): skipped, they need "
                         "2 GPUs, the host has 1\n")


if __name__ == "__main__":
    unittest.main()
