from autopatch_j.cli.app import main

main()
