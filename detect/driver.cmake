# The detection driver (`linfault detect`) and the saved failing-run format (`linfault replay`):
# detect/driver.h, detect/saved_run.h. Included from detect/CMakeLists.txt.
linfault_library(linfault_detect_driver
  SOURCES driver.cc saved_run.cc
  DEPS linfault_detect linfault_monitors linfault_dpct linfault_targets linfault_history
       nlohmann_json::nlohmann_json Threads::Threads)

linfault_test(detect_saved_run_test
  SOURCES saved_run_test.cc
  DEPS linfault_detect_driver)
linfault_test(detect_driver_test
  SOURCES driver_test.cc
  DEPS linfault_detect_driver)
linfault_test(detect_driver_native_test
  SOURCES driver_native_test.cc
  DEPS linfault_detect_driver
  LABELS native)
linfault_test(detect_quick_check_test
  SOURCES quick_check_test.cc
  DEPS linfault_detect_driver linfault_generator)
