import LeaderboardServer

LeaderboardServerCommand.main()
