"""Winnow-Pages read into counts, as the gateway writes it and as a newer gateway may."""

import unittest

from winnow.status_headers import read_pages_header


class PagesHeaderTest(unittest.TestCase):
    def test_reads_the_counts_of_the_rfc_8941_dictionary(self) -> None:
        pages = read_pages_header({"winnow-pages": "listing=12, details=136, failed=1, model=3"})
        self.assertEqual(pages, {"listing": 12, "details": 136, "failed": 1, "model": 3})

    def test_a_member_it_does_not_know_is_passed_over_and_a_missing_one_is_0(self) -> None:
        pages = read_pages_header({"winnow-pages": "listing=3, robots=2"})
        self.assertEqual(pages, {"listing": 3, "details": 0, "failed": 0, "model": 0})

    def test_no_header_is_none_and_one_that_is_not_a_dictionary_is_a_value_error(self) -> None:
        self.assertIsNone(read_pages_header({}))
        with self.assertRaises(ValueError):
            read_pages_header({"winnow-pages": "listing=, details"})


if __name__ == "__main__":
    unittest.main()
