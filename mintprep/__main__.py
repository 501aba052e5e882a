from mintprep.cli import main

main()
