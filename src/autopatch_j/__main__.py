from autopatch_j.cli.launch import main

main()
