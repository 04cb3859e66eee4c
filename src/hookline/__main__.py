"""``python -m hookline``: the ``hookline`` command."""

from hookline._cli.main import main

if __name__ == "__main__":
    main()
