"""End-to-end tests: the installed command as a process (over stdio, through ssh, from its
command line, from a wheel), the demo and workflow scripts, and faults that need a process.
Every test here is marked e2e (conftest.py); no test elsewhere starts the command."""
