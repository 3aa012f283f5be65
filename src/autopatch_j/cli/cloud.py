"""`autopatch-j cloud …` — placeholder until the cloud control plane lands."""

import typer

cloud_app = typer.Typer(help="Cloud control plane: init, users, API server and workers.", no_args_is_help=True)
