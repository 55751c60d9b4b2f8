"""Hand-written handlers: the tmux core and one package per profile."""
