import WidgetHost

WidgetHostCommand.main()
