import TodoCLI
TodoCLI.main()
