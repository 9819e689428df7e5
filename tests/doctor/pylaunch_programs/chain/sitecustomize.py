"""Another sitecustomize further along sys.path: it must still run."""
print("the next sitecustomize ran")
