from autopatch_j.cli import main

main()
