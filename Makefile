# The two commands of the README, and a few for developers.
#   make demo   installs what is missing, builds, and runs the main job on a default sample
#   make test   installs what is missing, builds, and runs every test
SWIFT ?= swift
# The trait Serve builds `peoplevision serve` (Documentation/Architecture.md, "The HTTP service").
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors --traits Serve
MODELS ?= $(if $(PEOPLEVISION_MODELS),$(PEOPLEVISION_MODELS),$(HOME)/.cache/peoplevision/models)

.PHONY: demo test build release bootstrap bench-inference eval robustness goldens clean check-self-tests check fuzz-smoke coverage tsan

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)

release: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS) --product peoplevision

# The photo greeting: the astronaut in front of the rocket, written to out/greeting.jpg.
demo: release
	@mkdir -p out
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision greet $(MODELS)/astronaut.png --background $(MODELS)/rocket.jpg -o out/greeting.jpg

# The checkers (with their self-tests) and a short fuzz run come first, so the test runner's summary ends the output.
# The HTTP service's tests wait on sockets with deadlines: they run in a process of their own, so that the other
# suites' synchronous model runs do not hold the few threads of Swift's cooperative pool they need.
test: bootstrap check-self-tests check fuzz-smoke
	$(SWIFT) test $(SWIFT_FLAGS) --skip ServeTests
	$(SWIFT) test $(SWIFT_FLAGS) --skip-build --filter ServeTests

check-self-tests:
	scripts/check-layers --self-test
	scripts/check-sizes --self-test
	scripts/surface-coverage --self-test
	scripts/robustness-set --self-test
	scripts/check-k8s --self-test

# A few thousand inputs per fuzz target (Fuzz/README.md), sanitized build included.
fuzz-smoke:
	Fuzz/run 3000

# ThreadSanitizer over the concurrency, batch and service suites (scripts/tsan): not part of `make test`, the
# sanitized build and runs take several times longer.
tsan: bootstrap
	scripts/tsan

# Imports against the layer rules of Documentation/Architecture.md; files over 600 lines, functions over 100; the
# Kubernetes example's manifests, Dockerfile and Job sharding (Examples/Kubernetes/README.md).
check:
	@status=0; scripts/check-layers || status=1; scripts/check-sizes || status=1; scripts/check-k8s || status=1; exit $$status

# How much of Apple's API that Vision people apps touch the package provides (README, "Porting an app").
coverage:
	scripts/surface-coverage

bench-inference: release
	$(SWIFT) run -c release $(SWIFT_FLAGS) peoplevision bench inference

eval: bootstrap
	scripts/eval --peer

# The robustness set (resized, heads covered, mirrored, cropped multi-person images), its section of EVALUATION.md.
robustness: bootstrap
	scripts/robustness-set

goldens:
	scripts/make-goldens

clean:
	rm -rf .build .build-fuzz .build-tsan
