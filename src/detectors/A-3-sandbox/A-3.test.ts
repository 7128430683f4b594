import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('A-3', detectors, import.meta.url);
