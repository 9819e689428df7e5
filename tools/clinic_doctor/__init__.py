"""The clinic doctor, as a package (tools/clinic-doctor runs it)."""
