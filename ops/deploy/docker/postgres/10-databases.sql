-- One database per service, as ./run-platform creates them; each service's Flyway migrates its own at start.
CREATE DATABASE order_service;
CREATE DATABASE inventory_service;
CREATE DATABASE notification_service;
CREATE DATABASE analytics_service;
