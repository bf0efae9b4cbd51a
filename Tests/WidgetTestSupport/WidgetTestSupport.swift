import WidgetCore
