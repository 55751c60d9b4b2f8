"""Tests of the profiles (handlers/): composition, the batch engine, and what compares the
profiles with one another. Each profile's own tools are tested in its folder."""
