# The two commands of the README, and a few for developers.
#   make demo   installs what is missing, builds, and runs the main job on a default sample
#   make test   installs what is missing, builds, and runs every test
SWIFT ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors
MODELS ?= $(if $(PEOPLEVISION_MODELS),$(PEOPLEVISION_MODELS),$(HOME)/.cache/peoplevision/models)

.PHONY: demo test build release bootstrap bench-inference eval goldens clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)

release: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS)

# The photo greeting: the astronaut in front of the rocket, written to out/greeting.jpg.
demo: release
	@mkdir -p out
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision greet $(MODELS)/astronaut.png --background $(MODELS)/rocket.jpg -o out/greeting.jpg

test: bootstrap
	$(SWIFT) test $(SWIFT_FLAGS)

bench-inference: release
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision bench inference

eval: bootstrap
	scripts/eval --peer

goldens:
	scripts/make-goldens

clean:
	rm -rf .build
