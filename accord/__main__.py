from accord.cli.main import main

main()
