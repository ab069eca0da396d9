"""The package as installed (unittest): these tests check that the suite reads the installed tickwire, not the
source tree, and that the install carries its metadata, py.typed and public names.
"""
import importlib.metadata
import os
import sys
import unittest
from pathlib import Path

import tickwire

SOURCE = Path(__file__).resolve().parents[1] / "src"


class InstalledPackageTests(unittest.TestCase):
    def test_imported_from_the_environment_not_the_source_tree(self):
        module = Path(tickwire.__file__).resolve()
        self.assertFalse(module.is_relative_to(SOURCE), f"{module} is the source tree's: install the package")
        self.assertTrue(module.is_relative_to(Path(sys.prefix).resolve()), f"{module} is outside {sys.prefix}")
        self.assertNotEqual(sys.prefix, sys.base_prefix, "not run in a virtual environment")

    def test_metadata(self):
        metadata = importlib.metadata.metadata("tickwire")
        self.assertEqual(tickwire.__version__, metadata["Version"])
        self.assertEqual(metadata["Requires-Python"], ">=3.11")
        self.assertEqual(metadata["License-Expression"], "Apache-2.0")
        self.assertTrue(any(requirement.startswith("pyzmq") for requirement in importlib.metadata.requires("tickwire")))

    def test_typed_and_public_names(self):
        self.assertTrue(os.path.isfile(Path(tickwire.__file__).with_name("py.typed")))
        for name in ("Client", "Subscriber", "Curve", "RPCError", "Unreachable", "Envelope", "Quote", "ExchangeRate",
                     "AssetPrice", "FeedStatus", "Heartbeat", "ConvertResult", "JSONRPCError", "MessageError"):
            self.assertIn(name, tickwire.__all__)
            self.assertTrue(hasattr(tickwire, name), name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
