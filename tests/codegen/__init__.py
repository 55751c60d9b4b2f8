"""Tests of codegen/: contracts in, generated/ out (models, registry, reference pages), and
the snapshots of what clients and readers see."""
