# The two commands of the README, and a few for developers.
#   make demo   installs what is missing, builds, and runs the main job on a default sample
#   make test   installs what is missing, builds, and runs every test
SWIFT ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors

.PHONY: demo test build release bootstrap bench-inference goldens clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)

release: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS)

demo: release
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision models --run

test: bootstrap
	$(SWIFT) test $(SWIFT_FLAGS)

bench-inference: release
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision bench inference

goldens:
	scripts/make-goldens

clean:
	rm -rf .build
